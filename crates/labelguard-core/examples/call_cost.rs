//! The contract engine's fixed cost per call: `cross_entropy` on (8, 10) logits read by shape
//! only and 8 int64 targets, as `enable()`'s hot path passes them (issue 13's per-call budget).
//!
//!     cargo run --release -p labelguard-core --example call_cost
use labelguard_core::{lookup, DType, TensorView, Value};
use std::time::Instant;

fn main() {
    let spec = lookup("cross_entropy").expect("a known op");
    let logits = [0u8; 4];
    let target: Vec<u8> = (0..8i64).flat_map(|i| (i % 10).to_le_bytes()).collect();
    let calls = 1_000_000;
    for _ in 0..3 {
        let start = Instant::now();
        let mut findings = 0;
        for _ in 0..calls {
            let views = vec![
                (
                    "input",
                    TensorView::with_strides(DType::F32, &[8, 10], &[0, 0], &logits).unwrap(),
                ),
                (
                    "target",
                    TensorView::new(DType::I64, &[8], &target).unwrap(),
                ),
            ];
            let args = vec![("reduction", Value::Str("mean".to_string()))];
            findings += spec.check(views, args).unwrap().findings.len();
        }
        let per_call = start.elapsed().as_secs_f64() * 1e6 / calls as f64;
        println!("{per_call:.3} us per call ({findings} findings)");
    }
}
