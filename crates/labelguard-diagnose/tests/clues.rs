//! Indirect evidence: how clues name the op of a device assert whose kernel the log does not
//! name, and how sure the answer may be.

use labelguard_diagnose::{diagnose_bytes, Confidence, Diagnosis, Options};

fn first(log: &str) -> Diagnosis {
    let r = diagnose_bytes(log.as_bytes(), "t.log", Options::default());
    r.findings.into_iter().next().expect("a finding")
}

const ASYNC: &str = "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n";

#[test]
fn a_bare_header_names_no_op() {
    let d = first(ASYNC);
    assert_eq!(d.op, "unknown");
    assert_eq!(d.confidence, Confidence::Low);
    assert_eq!(d.finding.code, "LG901");
}

#[test]
fn one_source_line_names_the_op_at_low_confidence() {
    let log = format!("    return x.scatter_(1, idx, 1.0)\n{ASYNC}");
    let d = first(&log);
    assert_eq!(d.op, "scatter");
    assert_eq!(d.confidence, Confidence::Low);
    assert_eq!(d.finding.code, "LG901", "a guess keeps the generic advice");
    assert!(d
        .evidence
        .iter()
        .any(|e| e.text.contains("scatter_(") && e.line == 1));
}

#[test]
fn a_generic_loss_helper_is_only_a_guess() {
    let log =
        format!("  File \"train.py\", line 9, in step\n    loss = criterion(out, y)\n{ASYNC}");
    let d = first(&log);
    assert_eq!(d.op, "cross_entropy");
    assert_eq!(d.confidence, Confidence::Low);
}

#[test]
fn two_independent_clues_that_agree_give_medium() {
    // THC's header names the loss kernel's file and the innermost frame calls nll_loss.
    let log = "Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 1332, in nll_loss\n    return torch._C._nn.nll_loss(input, target, weight, size_average, ignore_index, reduce)\nRuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:116\n";
    let d = first(log);
    assert_eq!(d.op, "nll_loss");
    assert_eq!(d.confidence, Confidence::Medium);
    assert_eq!(d.finding.code, "LG101");
    // The header alone is a clue, not proof.
    let d = first("RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:116\n");
    assert_eq!(d.op, "nll_loss");
    assert_eq!(d.confidence, Confidence::Low);
}

#[test]
fn a_rival_clue_keeps_the_answer_low() {
    let log = "Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 1332, in nll_loss\n    return torch._C._nn.nll_loss(input, target)\n  File \"m.py\", line 3, in f\n    e = torch.embedding(w, ids)\nRuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:116\n";
    let d = first(log);
    assert_eq!(d.confidence, Confidence::Low, "{}", d.op);
}

#[test]
fn a_well_known_library_frame_names_its_failing_call() {
    let log = "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.8/site-packages/detectron2/modeling/roi_heads/fast_rcnn.py\", line 267, in box_reg_loss\n    fg_inds = nonzero_tuple((self.gt_classes >= 0) & (self.gt_classes < bg_class_ind))[0]\nRuntimeError: CUDA error: device-side assert triggered\n";
    let d = first(log);
    assert_eq!(d.op, "cross_entropy");
    assert_eq!(d.confidence, Confidence::Low);
}

#[test]
fn notebook_context_lines_and_links_are_read() {
    let log = "AcceleratorError                          Traceback (most recent call last)\nCell In[11], [line 13](vscode-notebook-cell:?execution_count=11&line=13)\n     12 loss = F.cross_entropy(y_logits, y_train)\n---> [13](vscode-notebook-cell:?execution_count=11&line=13) acc = accuracy_cal(y_pred, y_train)\n\nAcceleratorError: CUDA error: device-side assert triggered\n";
    let r = diagnose_bytes(log.as_bytes(), "t.log", Options::default());
    let d = &r.findings[0];
    assert_eq!(d.op, "cross_entropy");
    let u = d.user_frame.as_ref().expect("the cell is the user's frame");
    assert_eq!(u.frame.line, Some(13));
    assert_eq!(
        u.frame.code.as_deref(),
        Some("acc = accuracy_cal(y_pred, y_train)")
    );
}

#[test]
fn interactive_input_is_a_clue() {
    let log = ">>> F.one_hot(a.cuda(), num_classes=9)\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n  File \"/x/site-packages/torch/_tensor.py\", line 305, in __repr__\n    return torch._tensor_str._str(self)\nRuntimeError: CUDA error: device-side assert triggered\n";
    assert_eq!(first(log).op, "one_hot");
}

/// The ops whose CUDA kernels are ScatterGatherKernel.cu's (and one_hot's scatter), likeliest first.
const SCATTER_GATHER_KERNEL_OPS: [&str; 6] = [
    "scatter",
    "gather",
    "one_hot",
    "scatter_add",
    "scatter_reduce",
    "take_along_dim",
];

#[test]
fn a_kernel_shared_by_several_ops_answers_the_likeliest_with_the_set() {
    let line = "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:365: operator(): block: [1,0,0], thread: [64,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.\n";
    let d = first(line);
    assert_eq!(d.op, "scatter");
    assert_eq!(d.candidates, SCATTER_GATHER_KERNEL_OPS);
    assert_eq!(d.confidence, Confidence::Low, "a guess among the set");
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["op"], "scatter");
    assert_eq!(json["candidates"][1], "gather");
    // Nothing decided the op: the JSON says so, with the others as alternatives; the clue is
    // the line that decided the cause.
    assert_eq!(
        json["alternatives"],
        serde_json::json!(SCATTER_GATHER_KERNEL_OPS[1..])
    );
    assert!(json["clue"]
        .as_str()
        .unwrap()
        .contains("nothing in the log tells apart"));
    // A library frame on the traceback chooses within the set.
    let log = format!("{line}Traceback (most recent call last):\n  File \"/v/site-packages/fairseq/criterions/label_smoothed_cross_entropy.py\", line 60, in compute_loss\n    loss, nll_loss = label_smoothed_nll_loss(lprobs, target, eps)\nRuntimeError: CUDA error: device-side assert triggered\n");
    let d = first(&log);
    assert_eq!(d.op, "gather");
    assert_eq!(d.confidence, Confidence::Low);
    // A direct call on the traceback does, with more confidence.
    let log = format!("{line}Traceback (most recent call last):\n  File \"rl.py\", line 6, in logp\n    return torch.gather(p, 1, a)\nRuntimeError: CUDA error: device-side assert triggered\n");
    let d = first(&log);
    assert_eq!(d.op, "gather");
    assert!(d.confidence >= Confidence::Medium);
    assert!(d.alternatives.is_empty());
    assert!(d.clue.as_deref().unwrap().contains("torch.gather(p, 1, a)"));
}

/// Issue 38: a gather reported by the kernel that gather and scatter share is never a confident
/// scatter; the user's `.gather(` line decides, below `high` when the traceback is asynchronous.
#[test]
fn the_shared_scatter_gather_kernel_is_told_apart_by_the_users_line() {
    let line = "/opt/conda/conda-bld/pytorch_1/work/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): block: [0,0,0], thread: [3,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.\n";
    let log = format!("{line}Traceback (most recent call last):\n  File \"/home/u/train.py\", line 88, in <module>\n    logp = logprobs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)\n{ASYNC}");
    let d = first(&log);
    assert_eq!(d.op, "gather");
    assert_eq!(
        d.confidence,
        Confidence::Medium,
        "an asynchronous traceback's line"
    );
    // The newer message of the same kernel (PyTorch 2.9+), on Windows: no function printed.
    let newer = "C:\\actions-runner\\_work\\pytorch\\pytorch\\aten\\src\\ATen\\native\\cuda\\ScatterGatherKernel.cu:204: block: [0,0,0], thread: [97,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"scatter gather kernel index out of bounds\"` failed.\n";
    let d = first(newer);
    assert_eq!(d.op, "scatter");
    assert_eq!(d.confidence, Confidence::Low);
    assert!(d.alternatives.contains(&"gather".to_string()));
}

/// Issue 38: PyTorch 2.8's vectorized gather kernel (index_select, embedding, x[idx]).
#[test]
fn the_vectorized_gather_kernel_of_2_8_is_known_and_shared() {
    let line = "../aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: block: [42,0,0], thread: [224,0,0] Assertion `ind >=0 && ind < ind_dim_size && \"vectorized gather kernel index out of bounds\"` failed.\n";
    let header = "torch.AcceleratorError: CUDA error: device-side assert triggered\nSearch for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n";
    let d = first(&format!("{line}{header}"));
    assert_eq!(d.kernel.as_deref(), Some("vectorized_gather_kernel"));
    assert_eq!(d.op, "embedding");
    assert_eq!(d.confidence, Confidence::Low);
    assert_eq!(d.alternatives, ["index_select", "index"]);
    // An embeddings frame decides.
    let log = format!("{line}Traceback (most recent call last):\n  File \"/v/site-packages/transformers/models/bert/modeling_bert.py\", line 210, in forward\n    inputs_embeds = self.word_embeddings(input_ids)\n{header}");
    let d = first(&log);
    assert_eq!(d.op, "embedding");
    assert!(d.alternatives.is_empty());
    assert!(d.clue.as_deref().unwrap().contains("word_embeddings"));
    assert_eq!(d.finding.code, "LG401", "the embedding's own explanation");
}

/// Issue 38: logs without an assertion line, read from the traceback's library frames and the
/// user's own line, at lower confidence and saying that the report may come late.
#[test]
fn tracebacks_without_an_assertion_line_name_op_and_cause_from_known_frames() {
    let detr = format!("Traceback (most recent call last):\n  File \"main.py\", line 248, in <module>\n    main(args)\n  File \"/home/u/detr/models/detr.py\", line 224, in forward\n    indices = self.matcher(outputs_without_aux, targets)\n  File \"/home/u/detr/models/matcher.py\", line 74, in forward\n    cost_class = -out_prob[:, tgt_ids]\n{ASYNC}");
    let d = first(&detr);
    assert_eq!(d.op, "index");
    assert_eq!(d.confidence, Confidence::Medium);
    assert!(d.cause.contains("num_classes"), "{}", d.cause);
    assert!(
        d.finding.message.contains("a few lines before"),
        "{}",
        d.finding.message
    );
    assert!(d.clue.as_deref().unwrap().contains("out_prob[:, tgt_ids]"));
    // MaskFormer's matcher reports at `.cpu()`: the library frame alone names it, low.
    let maskformer = format!("Traceback (most recent call last):\n  File \"/x/mask_former/modeling/matcher.py\", line 134, in memory_efficient_forward\n    C = C.reshape(num_queries, -1).cpu()\n{ASYNC}");
    let d = first(&maskformer);
    assert_eq!(d.op, "index");
    assert_eq!(d.confidence, Confidence::Low);
    assert!(d.clue.as_deref().unwrap().contains("matcher"));
    // nnU-Net's Dice loss: labels that are not consecutive.
    let nnunet = format!("Traceback (most recent call last):\n  File \"/x/nnunet/training/loss_functions/dice_loss.py\", line 56, in get_tp_fp_fn\n    fn = (1 - net_output) * y_onehot\n{ASYNC}");
    let d = first(&nnunet);
    assert_eq!(d.op, "scatter");
    assert!(d.cause.contains("consecutive"), "{}", d.cause);
    // The user's own line, no library.
    let user = format!("Traceback (most recent call last):\n  File \"train.py\", line 120, in <module>\n    cost_class = pos_cost_class[:, tgt_ids]\n{ASYNC}");
    let d = first(&user);
    assert_eq!(d.op, "index");
    assert!(d.clue.is_some());
}

#[test]
fn thc_kernel_names_tell_gather_from_scatter() {
    let g = "/pytorch/aten/src/THC/THCTensorScatterGather.cu:97: void THCudaTensor_gatherKernel(TensorInfo<Real, IndexType>, TensorInfo<Real, IndexType>, TensorInfo<long, IndexType>, int, IndexType) [with IndexType = unsigned int, Real = float, Dims = 2]: block: [128,0,0], thread: [353,0,0] Assertion `indexValue >= 0 && indexValue < src.sizes[dim]` failed.\n";
    let d = first(g);
    assert_eq!((d.op.as_str(), d.confidence), ("gather", Confidence::High));
    let s = g
        .replace("gatherKernel", "scatterFillKernel")
        .replace("src.sizes", "tensor.sizes");
    let d = first(&s);
    assert_eq!((d.op.as_str(), d.confidence), ("scatter", Confidence::High));
}

#[test]
fn a_host_error_of_a_shared_kernel_without_a_traceback_is_a_low_guess() {
    let d = first("RuntimeError: index 5 is out of bounds for dimension 1 with size 3\n");
    assert_eq!(d.finding.code, "LG402");
    assert_eq!(d.candidates, SCATTER_GATHER_KERNEL_OPS);
    assert_eq!(d.confidence, Confidence::Low);
}
