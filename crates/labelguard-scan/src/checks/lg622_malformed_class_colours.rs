//! LG622 malformed-class-colours: a dataset's list of class colours (CamVid's
//! `class_dict.csv`, the `labelmap.txt` of a CVAT or Datumaro export) that its loaders cannot read as they read it. The reader finds and names
//! the problem ([`ClassColoursProblem`], plain data); the finding is worded here.
//! Documentation: `labelguard_core::rules::lg622_malformed_class_colours`.

use labelguard_core::rules::LG622;
use labelguard_core::{Finding, Verdict};
pub use labelguard_formats::read::class_colours::ClassColoursProblem;

/// The finding that reports `p` of a file whose rows read `row` (`name,r,g,b`).
pub fn finding(p: &ClassColoursProblem, row: &str) -> Finding {
    let (message, fix) = match p {
        ClassColoursProblem::Header(h) => (
            format!("the header '{h}' does not name the columns name, r, g and b"),
            "restore the header name,r,g,b".to_string(),
        ),
        ClassColoursProblem::Row { line, text } => (
            format!("line {line}: '{text}' is not a name and three numbers 0..255"),
            "give the row its colour as three numbers 0..255".to_string(),
        ),
        ClassColoursProblem::Empty => (
            "it lists no class below its header".to_string(),
            format!("list one class a row: {row}"),
        ),
        ClassColoursProblem::Duplicate {
            colour,
            first,
            second,
        } => (
            format!(
                "the colour ({}, {}, {}) is listed twice, for '{}' (line {}) and '{}' (line {}): every pixel of it gets the later class's id, and '{}' never has a pixel",
                colour[0], colour[1], colour[2], first.1, first.0, second.1, second.0, first.1
            ),
            "give each class its own colour".to_string(),
        ),
        ClassColoursProblem::DuplicateName { name, lines } => (
            format!(
                "the class '{name}' is listed twice (lines {} and {}): its reader refuses the file",
                lines.0, lines.1
            ),
            "list each class once".to_string(),
        ),
    };
    Finding::new(&LG622, Verdict::Error, message)
        .hint("the loaders number the classes by the rows of this file and map each mask colour to its row")
        .fix(fix)
}
