//! The words of a token dataset's report (nanoGPT and Megatron files, token tables, chat
//! datasets): the vocabulary its ids were checked against instead of a class count, and
//! tokens, sequences and documents instead of elements.

use super::plural::plural;
use labelguard_scan_model::ScanReport;

/// Whether every file of the report is token data, so that its counts are tokens.
pub fn token_data(r: &ScanReport) -> bool {
    !r.tokens.is_empty() && r.tokens.files == r.summary.files_scanned
}

/// `vocab 65 (meta.pkl)`, `vocab 50,304 (--vocab-size 50304), 65 (meta.pkl)`, or what it
/// means that there was none.
pub fn vocabulary(r: &ScanReport) -> String {
    if r.tokens.vocabularies.is_empty() {
        return "vocabulary unknown (token ids are read, not range-checked)".into();
    }
    let each: Vec<String> = r
        .tokens
        .vocabularies
        .iter()
        .map(|v| format!("{} ({})", crate::thousands(v.size), v.source))
        .collect();
    format!("vocab {}", each.join(", "))
}

/// `1,000 tokens in 3 sequences of 2 documents`: what was read.
pub fn read(r: &ScanReport) -> String {
    let t = &r.tokens;
    let mut s = plural(t.tokens, "token");
    if t.sequences > 0 {
        s += &format!(" in {}", plural(t.sequences, "sequence"));
    }
    if t.documents > 0 {
        s += &format!(" of {}", plural(t.documents, "document"));
    }
    s
}
