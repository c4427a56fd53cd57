"""The differential test: labelguard's verdict is `error` or `device_assert` exactly when
PyTorch's CPU path raises, over thousands of random calls across every op."""

from __future__ import annotations

import collections
import concurrent.futures
import json
import math
import os
import re
import subprocess
import tempfile

import pytest
import torch
from safetensors.torch import save_file

from differential import arg_text, cases

N_CASES = int(os.environ.get("LABELGUARD_DIFF_CASES", "10000"))
SEED = int(os.environ.get("LABELGUARD_DIFF_SEED", "20261120"))

# CPU messages that stand for a CUDA kernel assertion (the rest are host-side errors).
DEVICE_ASSERT_MESSAGES = {
    # With reduction='none' and uint8 targets PyTorch formats the bad target as a raw byte, and
    # Python fails to decode the message: the UnicodeDecodeError stands for the same IndexError.
    "cross_entropy": r"^IndexError: Target |^UnicodeDecodeError: 'utf-8' codec can't decode",
    "nll_loss": r"^IndexError: Target |^UnicodeDecodeError: 'utf-8' codec can't decode",
    "binary_cross_entropy": r"all elements of (input|target) should be between 0 and 1",
    "embedding": r"index out of range in self|INDICES element is out of DATA bounds",
    "index_select": r"index out of range in self|INDICES element is out of DATA bounds",
    "gather": r"is out of bounds for dimension",
    "scatter": r"is out of bounds for dimension",
    "scatter_add": r"is out of bounds for dimension",
    "one_hot": r"Class values must be",
    "multinomial": r"invalid multinomial distribution \((encountering|sum of probabilities)",
    "nll_loss2d": r"^IndexError: Target |^UnicodeDecodeError: 'utf-8' codec can't decode",
    "index": r"index -?\d+ is out of bounds for dimension \d+ with size",
    "index_put": r"index -?\d+ is out of bounds for dimension \d+ with size",
    "take": r"out of range: tried to access index",
    "put": r"out of range: tried to access index",
    "take_along_dim": r"is out of bounds for dimension",
    "index_add": r"is out of bounds for dimension|index out of range in self",
    "index_copy": r"is out of bounds for dimension",
    "index_fill": r"is out of bounds for dimension",
    "scatter_reduce": r"is out of bounds for dimension",
    # MultiMarginLoss.cu asserts `target_k >= 0 && target_k < dim`; the CPU raises this.
    "multi_margin_loss": r"^RuntimeError: target out of range",
    # cuda/IndexKernel.cu masked_scatter_size_check asserts `totalElements <= srcSize`; the CPU
    # kernel (cpu/IndexKernel.cpp) raises this.
    "masked_scatter": r"Number of elements of source < number of ones in mask",
    "embedding_bag": r"which is not in the valid range|Expected i < index_size|Expected idx >= 0 && idx < num_embeddings|index out of range in self",
}


# CPU kernel messages with no CUDA counterpart: where a generator knows CUDA's verdict
# (`Case.cuda`), it replaces these.
CPU_ONLY = {
    # The CPU's fbgemm path checks that the last offset is the number of ids; with
    # include_last_offset cuda/EmbeddingBag.cu ends no bag at the last offset and asserts only
    # `end >= begin` for the bags it reads.
    "embedding_bag": r"Your input appears to be incorrect",
}


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def cuda_accumulate_rejects(case) -> bool:
    """index_put_(accumulate=True) on CUDA: wrapIndexOnce (aten/src/ATen/native/cuda/Indexing.cu)
    range-checks every broadcast index tensor with elements, even where a dimension that is not
    indexed has size 0 and the CPU writes nothing and raises nothing."""
    x = case.tensors["input"]
    names = [n for n in ("index", "index1", "index2", "index3") if n in case.tensors]
    dims = case.args.get("dims") or list(range(len(names)))
    parts = []
    for name, d in zip(names, dims):
        t = case.tensors[name]
        if t.dtype in (torch.bool, torch.uint8):
            if t.dim() == 0 or list(t.shape) != list(x.shape[d:d + t.dim()]):
                return False  # refused on the host, or no index of CUDA's kind
            nz = t.nonzero()
            parts += [(nz[:, j], x.shape[d + j]) for j in range(t.dim())]
        else:
            if d >= x.dim():
                return False
            parts.append((t.long(), x.shape[d]))
    try:
        shape = torch.broadcast_shapes(*[p.shape for p, _ in parts])
    except RuntimeError:
        return False
    if math.prod(shape) == 0:
        return False
    return any(bool(((p < -s) | (p >= s)).any()) for p, s in parts)


def expected_verdict_class(case, raised: bool, message: str) -> str:
    """'ok' when torch did not raise; 'device_assert' or 'error' from its message otherwise."""
    if case.op == "index_put" and case.args.get("accumulate") and cuda_accumulate_rejects(case):
        return "error"
    if case.cuda is not None and (not raised or re.search(CPU_ONLY.get(case.op, "$^"), message)):
        return case.cuda
    if not raised:
        return "ok"
    pattern = DEVICE_ASSERT_MESSAGES.get(case.op)
    if case.op == "one_hot" and case.args["num_classes"] not in (-1,) and case.args["num_classes"] < 1:
        return "error"  # CUDA checks num_classes >= 1 on the host
    if case.op == "multinomial" and not (case.args["replacement"] and case.args["num_samples"] > 1):
        return "error"  # the fast path checks on the host, on CUDA too
    if case.op == "index_put" and case.args.get("accumulate"):
        return "error"  # accumulate=True checks the indices on the host, on CUDA too
    if pattern and re.search(pattern, message):
        return "device_assert"
    return "error"


def run_case(binary: str, directory: str, i: int, case):
    path = os.path.join(directory, f"case{i}.safetensors")
    save_file({k: v.contiguous().clone() for k, v in case.tensors.items()}, path)
    cmd = [binary, "check", case.op, path, "--format", "json", "--color", "never"]
    for k, v in case.args.items():
        cmd += ["--arg", f"{k}={arg_text(v)}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    os.remove(path)
    if p.returncode == 2 or not p.stdout.strip():
        return None, p.returncode, p.stderr.strip()
    return json.loads(p.stdout), p.returncode, p.stderr.strip()


def describe(case) -> str:
    tensors = ", ".join(f"{k}={list(v.shape)}:{str(v.dtype).replace('torch.', '')}" for k, v in case.tensors.items())
    return f"{case.op}({tensors}; {case.args})"


def differential(binary: str, n: int = N_CASES, seed: int = SEED, generate=cases):
    """Runs n random calls of `generate(n, seed)`; returns (per-op counts, disagreements, the
    ops for which PyTorch raised on a call that a rule decided by values refused)."""
    from labelguard import _native

    metadata_rules = set(_native.metadata_rules())
    counts = collections.Counter()
    wrong = []
    raised_on_values = set()
    all_cases = list(generate(n, seed))
    expectations = [case.run_torch() for case in all_cases]
    with tempfile.TemporaryDirectory() as d, concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda ic: run_case(binary, d, *ic), enumerate(all_cases)))
    for case, (raised, message), (report, code, stderr) in zip(all_cases, expectations, results):
        counts[case.op] += 1
        if report is None:
            wrong.append(f"{describe(case)}: labelguard failed (exit {code}): {stderr} | torch: {message or 'ok'}")
            continue
        verdict = report["verdict"]
        expect = expected_verdict_class(case, raised, message)
        got = verdict if verdict in ("error", "device_assert") else "ok"
        if expect != "ok" and any(f["verdict"] in ("error", "device_assert") and f["code"] not in metadata_rules for f in report["findings"]):
            raised_on_values.add(case.op)
        exit_ok = code == (1 if got != "ok" else 0)
        if got != expect or not exit_ok:
            codes = [f["code"] for f in report["findings"]]
            wrong.append(f"{describe(case)}: labelguard {verdict} {codes} exit {code}, torch: {message or 'ok'} (expected {expect})")
    return counts, wrong, raised_on_values


def test_verdicts_agree_with_pytorch_cpu(labelguard):
    from labelguard._ops import OPS

    counts, wrong, raised_on_values = differential(labelguard)
    assert sum(counts.values()) >= 9000 or N_CASES < 9000
    assert set(counts) >= {
        "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
        "embedding", "gather", "scatter", "scatter_add", "index_select", "one_hot",
        "multinomial", "ctc_loss", "bincount", "index", "index_put", "take", "put", "take_along_dim",
        "index_add", "index_copy", "index_fill", "scatter_reduce", "embedding_bag", "nll_loss2d",
    }
    assert not wrong, f"{len(wrong)} disagreements of {sum(counts.values())} calls:\n" + "\n".join(wrong[:40])
    # The table's `raises_on_values`, which decides where a compiled step runs a check
    # (`_placement.py`: before the kernels that read what it reads, or after them), is what
    # PyTorch does: it raised on some values for exactly the ops the table says it does.
    assert raised_on_values == {op for op in counts if OPS[op].raises_on_values}


def test_generator_reaches_every_verdict(labelguard):
    """A differential run that never raised would prove nothing: the cases must hit all sides."""
    seen = collections.defaultdict(set)
    for case in cases(2500, SEED + 1):
        raised, message = case.run_torch()
        seen[case.op].add(expected_verdict_class(case, raised, message))
    for op, kinds in seen.items():
        assert "ok" in kinds and "error" in kinds, (op, kinds)
    for op in ("cross_entropy", "nll_loss", "binary_cross_entropy", "embedding", "gather", "scatter", "index_select", "one_hot",
               "index", "index_put", "take", "put", "take_along_dim", "index_add", "index_copy", "index_fill",
               "scatter_reduce", "embedding_bag", "nll_loss2d"):
        assert "device_assert" in seen[op], (op, seen[op])


if __name__ == "__main__":
    import sys

    from conftest import labelguard_bin

    n = int(sys.argv[1]) if len(sys.argv) > 1 else N_CASES
    counts, wrong, _ = differential(labelguard_bin(), n)
    print(dict(counts))
    print(f"{len(wrong)} disagreements")
    for w in wrong[:200]:
        print(w)
