//! Labels at the ends of i64: every number in a message is computed without overflow.

use labelguard_core::{class_ids, DType, TensorView, Verdict};

fn findings_for(values: &[i64], c: i64, ignore: i64) -> Vec<labelguard_core::Finding> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let view = TensorView::new(DType::I64, &[values.len()], &bytes).unwrap();
    class_ids(&view, "target", c, ignore, Verdict::DeviceAssert)
}

#[test]
fn i64_max_label_asks_for_a_class_dimension_of_2_pow_63() {
    let f = findings_for(&[0, 1, i64::MAX], 3, -100);
    assert_eq!(f.len(), 1);
    assert!(
        f[0].fix.contains("9223372036854775808 wide"),
        "{}",
        f[0].fix
    );
    assert!(!f[0].fix.contains('-'), "{}", f[0].fix);
    assert!(
        f[0].message.contains("9223372036854775807"),
        "{}",
        f[0].message
    );
}

#[test]
fn i64_min_label_is_reported_as_itself() {
    let f = findings_for(&[0, i64::MIN], 3, -100);
    let all: String = f.iter().map(|f| f.message.clone() + &f.fix).collect();
    assert!(all.contains("-9223372036854775808"), "{all}");
}
