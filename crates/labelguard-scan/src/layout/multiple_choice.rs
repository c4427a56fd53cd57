//! Multiple-choice tables (SWAG, HellaSwag, `run_swag.py`'s `--train_file`): each row holds the
//! candidate endings `ending0`..`ending{K-1}` and the label is the index of the right one, so
//! the model's `AutoModelForMultipleChoice` scores K choices and the label's class count is K
//! (`transformers/examples/pytorch/multiple-choice/run_swag.py`: `ending_names =
//! [f"ending{i}" for i in range(4)]`, the loss a cross-entropy over the 4 scores).

use labelguard_formats::formats::TableFormat;
use labelguard_formats::read::table::column_names;
use labelguard_formats::source::Source;

/// The number of ending columns, `ending0`, `ending1`, ... without a gap, when there are at
/// least two.
pub(crate) fn endings(columns: &[String]) -> Option<u32> {
    let k = (0..)
        .take_while(|i| columns.iter().any(|c| *c == format!("ending{i}")))
        .count();
    (k >= 2).then_some(k as u32)
}

/// The class count that the label tables of a dataset declare by their ending columns: the
/// count when every table that has them has the same count, else none (tables of another kind
/// beside them do not vote).
pub(crate) fn class_count<'a>(
    tables: impl IntoIterator<Item = (&'a Source, TableFormat)>,
) -> Option<u32> {
    let mut counts = tables
        .into_iter()
        .filter_map(|(source, f)| endings(&column_names(source, f)?));
    let first = counts.next()?;
    counts.all(|k| k == first).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::endings;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_ending_columns_count_the_choices() {
        let swag = names(&[
            "video-id", "sent1", "sent2", "ending0", "ending1", "ending2", "ending3", "label",
        ]);
        assert_eq!(endings(&swag), Some(4));
        // A gap ends the run; one ending is no choice; none is another table.
        assert_eq!(
            endings(&names(&["ending0", "ending1", "ending3", "label"])),
            Some(2)
        );
        assert_eq!(endings(&names(&["ending0", "label"])), None);
        assert_eq!(endings(&names(&["sentence", "label"])), None);
        assert_eq!(endings(&names(&["ending1", "ending2", "label"])), None);
    }
}
