//! LG101 class-id-out-of-range, for ImageFolder datasets (more class folders than the model has
//! outputs, so the last folders get ids past its head) and WebDataset class labels. (The ids of masks and arrays are judged
//! by the core's class-id analysis, [`labelguard_core::class_ids`].) The layout lists the
//! folders; the decision and the finding are here.
//! Documentation: `labelguard_core::rules::lg101_class_id_out_of_range`.

use labelguard_core::rules::LG101;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

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

/// The finding when a sample's class label (`part`: the WebDataset part, `cls` or `json.label`)
/// is `value`, at or past `num_classes`. One label says nothing about how the dataset numbers
/// its classes (the causes the core names for a mask, such as one-based labels, are read from
/// many ids), so the finding is the plain one.
pub fn sample_label_out_of_range(part: &str, value: i64, num_classes: u32) -> Finding {
    labelguard_core::Finding::new(
        &LG101,
        labelguard_core::Verdict::DeviceAssert,
        format!(
            "the sample's class label in '{part}' is {value}, outside [0, {}] (num_classes = {num_classes})",
            i64::from(num_classes) - 1
        ),
    )
    .hint("cross_entropy reads the label as an index into the model's outputs: on CUDA, a device-side assert")
    .fix(format!("correct the label, or give the model {} outputs", value + 1))
}
