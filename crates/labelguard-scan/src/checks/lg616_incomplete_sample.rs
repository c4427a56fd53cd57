//! LG616 incomplete-sample: a WebDataset sample with labels but no data, a key WebDataset
//! yields twice, or two parts with one extension. The `webdataset` layout groups the files as
//! WebDataset does ([`crate::layout`]); the findings are built here.
//! Documentation: `labelguard_core::rules::lg616_incomplete_sample`.

use labelguard_core::rules::LG616;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// Sample `key` has the label parts `labels` (extensions) and no data part.
pub fn labels_without_data(key: &str, labels: &[&str]) -> Finding {
    problem(
        &LG616,
        format!(
            "sample '{key}' has {} but no data part (no image or other input)",
            labels.join(", ")
        ),
    )
    .hint("WebDataset yields the sample without its input: sample['jpg'] raises KeyError")
    .fix("restore the sample's image, or remove its label files")
}

/// Key `key` starts a second run of files: its first run began at `first` (as the report
/// shows it); `other_shard` when the runs are in different shards.
pub fn key_in_two_runs(key: &str, first: &str, other_shard: bool) -> Finding {
    let where_ = if other_shard {
        "in another shard"
    } else {
        "after other keys"
    };
    problem(
        &LG616,
        format!("sample '{key}' appears again {where_} (first at {first}): WebDataset yields it as two samples"),
    )
    .hint("group_by_keys groups consecutive files only: each of the two samples lacks the other's parts")
    .fix("write all the files of a sample together, in one shard")
}

/// Sample `key` has a second part with extension `ext` (extensions are compared lower-cased).
pub fn duplicate_part(key: &str, ext: &str) -> Finding {
    problem(
        &LG616,
        format!("sample '{key}' has two '{ext}' parts (extensions are compared lower-cased)"),
    )
    .hint("WebDataset's group_by_keys raises ValueError: duplicate file name in tar file")
    .fix("keep one file per extension in each sample")
}
