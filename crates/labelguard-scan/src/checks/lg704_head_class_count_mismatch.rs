//! LG704 head-class-count-mismatch: the head's class count disagrees with the dataset's
//! classes without an id out of range: a head larger than the framework needs, `nc` in
//! `data.yaml` that disagrees with its names.
//! Documentation: `labelguard_core::rules::lg704_head_class_count_mismatch`.

use crate::framework::Framework;
use labelguard_core::rules::LG704;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// `num_classes` is larger than the `needed` classes of `categories` declared ones.
pub fn head_larger_than_needed(
    framework: Framework,
    num_classes: u32,
    needed: u64,
    categories: usize,
) -> Finding {
    let background = !framework.counts_background() && u64::from(num_classes) == needed + 1;
    problem(
        &LG704,
        format!(
            "the head has {num_classes} classes but {} needs {needed} for the {categories} declared categories",
            framework.as_str()
        ),
    )
    .hint(if background {
        format!("{} has no background class: num_classes counts the object classes only", framework.as_str())
    } else {
        "the extra outputs are only ever trained as negatives".to_string()
    })
    .fix(format!("set {} to {needed}", framework.head_setting()))
}

/// `nc` in `data.yaml` is not the number of `names`.
pub fn nc_disagrees_with_names(nc: i64, names: usize) -> Finding {
    problem(
        &LG704,
        format!("data.yaml: nc is {nc} but names lists {names} classes"),
    )
    .hint("ultralytics refuses the file ('names' length and 'nc' must match); older YOLO code builds the head with nc")
    .fix(format!("set nc: {names}, or drop nc (ultralytics takes len(names))"))
}
