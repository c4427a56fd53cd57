//! The class-id analysis names the cause, and the fix follows the cause (issue 9).

use labelguard_core::{class_ids, spec, DType, TensorView, Value, Verdict};

fn analyse(values: &[u8], c: i64, ignore: i64) -> Vec<(String, String)> {
    let view = TensorView::new(DType::U8, &[1, values.len()], values).unwrap();
    class_ids(&view, "mask", c, ignore, Verdict::DeviceAssert)
        .into_iter()
        .map(|f| (f.code.to_string(), f.fix))
        .collect()
}

#[test]
fn only_c_without_zero_is_one_based_even_with_19_classes() {
    // 1..=19 with no 0, under the Cityscapes class count: 1-based, not labelIds.
    let v: Vec<u8> = (1..=19).chain([19, 19, 255]).collect();
    let f = analyse(&v, 19, 255);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0, "LG104", "{f:?}");
    // With a 0 present and several ids in 19..=33 it stays labelIds.
    let v: Vec<u8> = (0..=26).collect();
    assert_eq!(analyse(&v, 19, 255)[0].0, "LG105");
}

#[test]
fn widening_the_head_is_offered_only_for_a_few_ids_just_above_c() {
    // One id just above C: widening is the first fix.
    let f = analyse(&[0, 1, 2, 3, 4, 5], 5, 255);
    assert!(
        f[0].1
            .starts_with("make the class dimension of input 6 wide"),
        "{f:?}"
    );
    // One id far above C (a custom remap): remap first, not a 41-wide head.
    let f = analyse(&[0, 1, 2, 40], 19, 255);
    assert_eq!(f[0].0, "LG101");
    assert!(f[0].1.starts_with("remap the labels to 0..18"), "{f:?}");
    // Many distinct ids up to 253 (a bilinear resize): not "254 wide".
    let v: Vec<u8> = (0..19).chain((200..=253).step_by(3)).collect();
    let f = analyse(&v, 19, 255);
    assert!(!f[0].1.starts_with("make the class dimension"), "{f:?}");
    assert!(f[0].1.contains("bilinear"), "{f:?}");
    // A binary 0/255 mask with two classes: map to 0/1.
    let f = analyse(&[0, 255, 0, 255], 2, -100);
    assert!(f[0].1.contains("(mask > 127)"), "{f:?}");
}

#[test]
fn sixteen_bit_ids_are_not_a_head_width() {
    let bytes: Vec<u8> = [0u16, 5, 1430, 149]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let view = TensorView::new(DType::U16, &[1, 4], &bytes).unwrap();
    let f = class_ids(&view, "mask", 150, 255, Verdict::DeviceAssert);
    assert_eq!(f[0].code, "LG101");
    assert!(
        f[0].fix.starts_with("remap the labels to 0..149"),
        "{}",
        f[0].fix
    );
    assert!(f[0].hint.as_deref().unwrap().contains("16 bits"));
}

/// multi_margin_loss has no ignore_index: its class ids get the same causes, and the fixes of
/// marker values (255, -1) do not ask for one.
#[test]
fn a_loss_without_ignore_index_gets_the_causes_and_no_ignore_index_fix() {
    let op = spec("multi_margin_loss").unwrap();
    let run = |targets: &[i64], c: usize| {
        let n = targets.len();
        let logits = vec![0u8; n * c * 4];
        let ids: Vec<u8> = targets.iter().flat_map(|v| v.to_le_bytes()).collect();
        let input = TensorView::new(DType::F32, &[n, c], &logits).unwrap();
        let target = TensorView::new(DType::I64, &[n], &ids).unwrap();
        let args: Vec<(&str, Value)> = Vec::new();
        let report = op
            .check(vec![("input", input), ("target", target)], args)
            .unwrap();
        report
            .findings
            .into_iter()
            .map(|f| (f.code.to_string(), f.verdict, f.message, f.fix))
            .collect::<Vec<_>>()
    };
    let f = run(&[1, 2, 3, 3], 3);
    assert_eq!(
        (f[0].0.as_str(), f[0].1),
        ("LG104", Verdict::DeviceAssert),
        "{f:?}"
    );
    let f = run(&[0, 255, 4], 5);
    assert_eq!(f[0].0, "LG103", "{f:?}");
    assert!(f[0].2.contains("the loss has no ignore_index"), "{f:?}");
    assert!(
        f[0].3
            .starts_with("this loss has no ignore_index: drop the samples whose target is 255"),
        "{f:?}"
    );
    let f = run(&[0, -1, 4], 5);
    assert_eq!(f[0].0, "LG107", "{f:?}");
    assert!(!f[0].3.contains("ignore_index=-1"), "{f:?}");
    assert!(run(&[0, 4, 2], 5).is_empty());
}

/// A mask of `ids` in equal runs of `run` pixels each (regions, as real masks have), with
/// `stray` pixels of `value` written over its end.
fn mask(ids: &[u8], run: usize, stray: usize, value: u8) -> Vec<u8> {
    let mut m: Vec<u8> = ids
        .iter()
        .flat_map(|&v| std::iter::repeat_n(v, run))
        .collect();
    let n = m.len();
    m[n - stray..].fill(value);
    m
}

fn findings(values: &[u8], c: i64, ignore: i64) -> Vec<labelguard_core::Finding> {
    let view = TensorView::new(DType::U8, &[1, values.len()], values).unwrap();
    class_ids(&view, "mask", c, ignore, Verdict::DeviceAssert)
}

#[test]
fn a_few_stray_ids_are_a_data_error_at_every_class_count() {
    use labelguard_core::rule::Fact;
    // Issue 34's innocent datasets: a 6x6 patch of the id C (or beyond it) in a mask of the
    // classes of Cityscapes (19), VOC (21), ADE20K (150), and a stray label among MNIST's 10.
    for (c, value) in [(19u8, 19u8), (19, 25), (21, 21), (150, 150), (10, 12)] {
        let ids: Vec<u8> = (0..c).collect();
        let m = mask(&ids, 3000, 36, value);
        let f = findings(&m, i64::from(c), 255);
        assert_eq!(f.len(), 1, "C={c} value={value}: {f:?}");
        assert_eq!(f[0].code, "LG101", "C={c} value={value}: {f:?}");
        assert_eq!(f[0].fact, Some(Fact::StrayValues), "{f:?}");
        assert!(f[0].fix.starts_with("correct or drop"), "{}", f[0].fix);
        let words = format!("{} {:?}", f[0].fix, f[0].hint);
        for never in [
            "make the class dimension",
            "num_classes=",
            "ADE20K",
            "labelIds",
            "1-based",
            "reduce_zero",
        ] {
            assert!(!words.contains(never), "C={c}: '{never}' in {words}");
        }
        assert_eq!(f[0].count, Some(36));
    }
    // One stray 12 in a batch of 64 MNIST labels (six or seven of each digit).
    let mut batch: Vec<u8> = (0..63).map(|i| (i % 10) as u8).collect();
    batch.push(12);
    let f = findings(&batch, 10, -100);
    assert_eq!(f[0].code, "LG101");
    assert!(
        !f[0].fix.contains("make the class dimension"),
        "{}",
        f[0].fix
    );
}

#[test]
fn conventions_are_still_named_where_the_ids_show_them() {
    // Cityscapes labelIds: ids 0..33, those beyond 18 as common as the rest.
    let ids: Vec<u8> = (0..34).collect();
    assert_eq!(findings(&mask(&ids, 500, 0, 0), 19, 255)[0].code, "LG105");
    // 1-based: no 0, C as common as any class.
    let ids: Vec<u8> = (1..=10).collect();
    assert_eq!(findings(&mask(&ids, 500, 0, 0), 10, 255)[0].code, "LG104");
    // ADE20K's raw numbering: 0 means other, classes 1..150.
    let ids: Vec<u8> = (0..=150).collect();
    assert_eq!(findings(&mask(&ids, 200, 0, 0), 150, 255)[0].code, "LG106");
    // A class C as common as the others beside 0..C-1: the head may be one class short.
    let ids: Vec<u8> = (0..=5).collect();
    let f = findings(&mask(&ids, 100, 0, 0), 5, 255);
    assert_eq!(f[0].code, "LG101");
    assert!(
        f[0].fix
            .starts_with("make the class dimension of input 6 wide"),
        "{}",
        f[0].fix
    );
    assert_eq!(f[0].fact, None);
}

#[test]
fn stray_labels_of_index_ops_keep_their_rule_and_name_the_sample() {
    // one_hot(labels, 10) of 63 MNIST-like labels and one more, `last`.
    let one_hot = |last: i64| {
        let labels: Vec<i64> = (0..63).map(|i| i % 10).chain([last]).collect();
        let bytes: Vec<u8> = labels.iter().flat_map(|v| v.to_le_bytes()).collect();
        let t = TensorView::new(DType::I64, &[64], &bytes).unwrap();
        spec("one_hot")
            .unwrap()
            .check(vec![("tensor", t)], vec![("num_classes", Value::Int(10))])
            .unwrap()
            .findings
    };
    // One stray 12: no "one class more" (LG416).
    let f = one_hot(12);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_ne!(f[0].code, "LG416", "{f:?}");
    assert!(f[0].fix.starts_with("correct or drop"), "{}", f[0].fix);
    // One stray 10 (= C) fits a stray label and a head one class short: LG416 names both.
    let f = one_hot(10);
    assert_eq!(f[0].code, "LG416", "{f:?}");
    let hint = f[0].hint.as_deref().unwrap();
    assert!(
        hint.contains("stray labels") && hint.contains("one class short"),
        "{hint}"
    );
    assert!(f[0].fix.starts_with("correct or drop"), "{}", f[0].fix);
}

#[test]
fn a_255_label_per_sample_is_worded_as_a_sample_not_a_pixel() {
    // MNIST's targets or a classification table: one label per sample, one of them 255.
    let ids: Vec<i64> = (0..30)
        .map(|i| if i == 12 { 255 } else { i % 10 })
        .collect();
    let per_sample = TensorView::of_i64(&ids);
    let f = class_ids(&per_sample, "label", 10, -100, Verdict::DeviceAssert);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].code, "LG103", "{f:?}");
    assert!(
        f[0].message.contains("255, the 'unlabelled' marker"),
        "{f:?}"
    );
    let hint = f[0].hint.as_deref().unwrap();
    assert!(
        hint.starts_with("one label per sample") && !hint.contains("pixels"),
        "{hint}"
    );
    assert!(
        f[0].fix
            .starts_with("relabel or drop the samples labelled 255"),
        "{f:?}"
    );
    // The same ids as a mask (`[1, H, W]`): a void border of pixels, whose fix is the ignore_index.
    let bytes: Vec<u8> = ids.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mask = TensorView::new(DType::I64, &[1, 5, 6], &bytes).unwrap();
    let f = class_ids(&mask, "mask", 10, -100, Verdict::DeviceAssert);
    assert_eq!(f[0].code, "LG103", "{f:?}");
    assert!(
        f[0].hint.as_deref().unwrap().contains("unlabelled pixels"),
        "{f:?}"
    );
    assert!(f[0].fix.starts_with("pass ignore_index=255"), "{f:?}");
}

/// timm's `train.py` on an ImageFolder with a 4th class folder and `--num-classes 3`: a batch of
/// 4 labels holds 2, 3, 3, 3 (no 0 by chance). Its label-smoothing loss gathers the log-probs at
/// the labels, and `nn.CrossEntropyLoss` takes them as targets: neither may call the labels
/// 1-based (LG104, "subtract one") on 4 labels; the same 4 labels as 1, 2, 3, 3 (every class
/// shifted by one) stay 1-based.
#[test]
fn a_small_batch_without_a_zero_is_not_called_one_based() {
    let i64s = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let logits = vec![0u8; 4 * 3 * 4];
    let codes_and_fixes = |f: Vec<labelguard_core::Finding>| -> Vec<(String, String)> {
        f.into_iter().map(|f| (f.code.to_string(), f.fix)).collect()
    };
    let cross_entropy = |labels: &[i64]| {
        let ids = i64s(labels);
        let input = TensorView::new(DType::F32, &[4, 3], &logits).unwrap();
        let target = TensorView::new(DType::I64, &[4], &ids).unwrap();
        let args: Vec<(&str, Value)> = Vec::new();
        let f = spec("cross_entropy")
            .unwrap()
            .check(vec![("input", input), ("target", target)], args)
            .unwrap()
            .findings;
        codes_and_fixes(f)
    };
    let gather = |labels: &[i64]| {
        let ids = i64s(labels);
        let input = TensorView::new(DType::F32, &[4, 3], &logits).unwrap();
        let index = TensorView::new(DType::I64, &[4, 1], &ids).unwrap();
        let f = spec("gather")
            .unwrap()
            .check(
                vec![("input", input), ("index", index)],
                vec![("dim", Value::Int(-1))],
            )
            .unwrap()
            .findings;
        codes_and_fixes(f)
    };
    for f in [cross_entropy(&[2, 3, 3, 3]), gather(&[2, 3, 3, 3])] {
        assert!(!f.is_empty(), "3 is out of range");
        assert!(f.iter().all(|(code, _)| code != "LG104"), "{f:?}");
        assert!(
            f.iter().all(|(_, fix)| !fix.contains("labels - 1")),
            "{f:?}"
        );
    }
    assert_eq!(cross_entropy(&[1, 2, 3, 3])[0].0, "LG104");
    assert_eq!(gather(&[1, 2, 3, 3])[0].0, "LG104");
}
