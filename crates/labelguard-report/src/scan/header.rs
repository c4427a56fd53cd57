//! What a scan report's header says of the labels beside the class count, in the text and the
//! HTML report alike: that none were found, and the ignore value only where labels can hold it.

use super::tokens;
use labelguard_scan_model::ScanReport;

/// Files were read and none held a class id (a folder of photos without labels, DCGAN's or
/// DreamBooth's; a text dataset with no label column): there is no class count to be unknown.
/// Unreadable files keep the usual words, since their ids are not known to be absent; other
/// findings (a model folder's, `--model`) do not.
pub fn no_labels(r: &ScanReport) -> bool {
    let s = &r.summary;
    s.files_scanned > 0
        && !r.files.iter().any(|f| f.unreadable())
        && s.elements == 0
        && r.histogram.classes.is_empty()
        && !tokens::token_data(r)
}

/// `ignore_index -100`, or for token data `label mask -100` where its rows can carry labels
/// (token tables and chat datasets: the `labels` value that the loss skips), or nothing where
/// the ignore value means nothing: token streams (nanoGPT, Megatron) and data without labels.
pub fn ignore_words(r: &ScanReport) -> Option<String> {
    let ignore = r.settings.ignore_index;
    if no_labels(r) {
        None
    } else if tokens::token_data(r) {
        // nanoGPT files count no sequences, Megatron's count documents: neither has labels.
        (r.tokens.sequences > 0 && r.tokens.documents == 0).then(|| format!("label mask {ignore}"))
    } else {
        Some(format!("ignore_index {ignore}"))
    }
}
