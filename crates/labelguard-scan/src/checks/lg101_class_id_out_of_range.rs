//! LG101 class-id-out-of-range, for ImageFolder datasets: more class folders than the model has
//! outputs, so the last folders get ids past its head. (The ids of masks and arrays are judged
//! by the core's class-id analysis, [`labelguard_core::class_ids`].) The layout lists the
//! folders; the decision and the finding are here.
//! Documentation: `labelguard_core::rules::lg101_class_id_out_of_range`.

use crate::problem::problem;
use labelguard_core::rules::LG101;
use labelguard_core::Finding;

/// The finding when a split has more class folders (`classes`, sorted as ImageFolder numbers
/// them) than `num_classes`.
pub fn too_many_class_folders(classes: &[String], num_classes: u32) -> Option<Finding> {
    let c = num_classes as usize;
    (classes.len() > c).then(|| {
        let extra: Vec<String> = classes[c..].iter().map(|n| format!("'{n}'")).collect();
        problem(
            &LG101,
            format!(
                "{} class folders but num_classes is {c}: {} get ids {}..{}",
                classes.len(),
                extra.join(", "),
                c,
                classes.len() - 1
            ),
        )
        .hint("ImageFolder numbers every sub-folder, including stray ones (a 'misc', '.ipynb_checkpoints' or an extra class)")
        .fix(format!("remove the extra folders, or give the model {} outputs", classes.len()))
    })
}
