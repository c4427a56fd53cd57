//! The findings of a YOLO `data.yaml`'s problems, which its reader
//! (`labelguard_formats::read::data_yaml`) finds and names ([`DataYamlProblem`], plain data):
//! LG709 for a file ultralytics refuses, LG704 for `nc` that disagrees with the names.

use super::lg704_head_class_count_mismatch as lg704;
use super::lg709_malformed_annotation as lg709;
use labelguard_core::Finding;
pub use labelguard_formats::read::data_yaml::DataYamlProblem;

/// The finding that reports `p`.
pub fn finding(p: DataYamlProblem) -> Finding {
    match p {
        DataYamlProblem::Unreadable(f) => f,
        DataYamlProblem::Malformed(detail) => lg709::data_yaml(detail),
        DataYamlProblem::NcDisagrees { nc, names } => lg704::nc_disagrees_with_names(nc, names),
    }
}
