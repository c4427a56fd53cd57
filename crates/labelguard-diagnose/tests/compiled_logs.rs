//! Failures in kernels that torch.compile generated (`src/compiled.rs`): the whole diagnosis of
//! each inductor/Triton fixture log (tests/fixtures/logs/inductor_*.log, triton_*.log) pinned by a
//! snapshot (tests/snapshots/): op, rule, cause with the kernel's bound, the rerun in the fix,
//! the user's frame (never a generated file) and the evidence.

use labelguard_diagnose::{diagnose_reader, Options};
use std::path::Path;

fn snapshot(file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/logs")
        .join(file);
    let report = diagnose_reader(
        std::fs::File::open(&path).unwrap(),
        file,
        Options::default(),
    )
    .unwrap();
    for d in &report.findings {
        if let Some(u) = &d.user_frame {
            assert!(
                !u.frame.file.contains("torchinductor") && !u.frame.file.starts_with('<'),
                "{file}: {u:?}"
            );
        }
    }
    insta::assert_yaml_snapshot!(file.trim_end_matches(".log"), report);
}

macro_rules! logs {
    ($($name:ident: $file:literal,)*) => {$(
        #[test]
        fn $name() {
            snapshot($file);
        }
    )*};
}

logs! {
    cpu_embedding_raised: "inductor_cpu_embedding_raised.log",
    cpu_cross_entropy_raised: "inductor_cpu_cross_entropy_raised.log",
    cpu_embedding_omp_abort: "inductor_cpu_embedding_omp_abort.log",
    cpu_cross_entropy_omp_abort: "inductor_cpu_cross_entropy_omp_abort.log",
    cpu_getitem_abort: "inductor_cpu_pytorch_195402_getitem_abort.log",
    cpu_no_lower_bound: "inductor_cpu_pytorch_111952_no_lower_bound.log",
    cpu_torch_2_1_c10_error: "inductor_cpu_torch_2.1_c10_error.log",
    triton_gpt_fast_vocab: "triton_gpt_fast_14_prefill_vocab.log",
    triton_litgpt_vocab: "triton_litgpt_774_llama2_chat.log",
    triton_dynamic_bound: "triton_torchtitan_1640_dynamic_bound.log",
    triton_single_quotes: "triton_issue_27_single_quotes.log",
}
