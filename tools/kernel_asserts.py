#!/usr/bin/env python3
"""The words of PyTorch's kernels, per release: regenerates the facts of
crates/labelguard-diagnose/src/kernel_asserts.toml from a local PyTorch checkout.

    python3 tools/kernel_asserts.py --repo ~/src/pytorch > kernel_asserts.new.toml
    python3 tools/kernel_asserts.py --repo ~/src/pytorch --tags v2.8.0 main   # a few refs only

For every ref (the release tags v2.0.0 .. v2.15.0 that exist in the checkout, then main) it reads
the files with `git show REF:PATH` (nothing is checked out, nothing is built) and records:

* [[site]]   every CUDA_KERNEL_ASSERT, CUDA_KERNEL_ASSERT_MSG, CUDA_KERNEL_ASSERT_VERBOSE and
             CUDA_KERNEL_ASSERT_PRINTF in aten/src/ATen/native/cuda/**/*.cu|*.cuh: the path, the
             function the CUDA runtime prints (`operator()` inside a lambda or a functor), the
             condition as the runtime prints it (the preprocessor's stringification: runs of
             white space become one space) and the message string inside it;
* [[host]]   the host-side messages of the same misuses (HOST_MESSAGES below), where they occur;
* [[header]] the header lines that report a device assert (HEADERS below);
* [[compiled]] inductor's device-assert templates (COMPILED below).

Each fact gets the range of refs in which that exact text appears (`since`, `until`) and the
refs it was read at (`verified_tags`). Facts only: no line of PyTorch's code is written out.

The ops and the explanation of a site are labelguard's knowledge, not PyTorch's: they come from
OPS below, keyed by file name and kernel (or a condition's substring). A site that OPS does not
map is printed with `ops = []`, and the test of the table in labelguard-diagnose fails until
someone maps it: a new kernel never goes unnoticed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, field

CUDA_DIR = "aten/src/ATen/native/cuda"
MACROS = (
    "CUDA_KERNEL_ASSERT_VERBOSE",
    "CUDA_KERNEL_ASSERT_PRINTF",
    "CUDA_KERNEL_ASSERT_MSG",
    "CUDA_KERNEL_ASSERT",
)

# (file name, kernel or None, condition substring or None) -> (ops, explanation in knowledge.toml).
# The first entry that matches wins. Sources: the REGISTER_DISPATCH lines of each file and the
# callers of its kernels (cited in /work/shared/pytorch-asserts.md).
OPS: list[tuple[str, str | None, str | None, list[str], str]] = [
    ("IndexKernelUtils.cu", "vectorized_gather_kernel", None,
     ["embedding", "index_select", "index"], "vectorized-gather"),
    ("ScatterGatherKernel.cu", None, None,
     ["scatter", "gather", "one_hot", "scatter_add", "scatter_reduce", "take_along_dim"],
     "gather-scatter"),
    ("IndexKernel.cu", "masked_scatter_size_check", None, ["masked_scatter"], "masked-scatter"),
    ("IndexKernel.cu", None, "cuda_take_put_kernel", ["take", "put"], "advanced-index"),
    ("IndexKernel.cu", None, "index_copy_", ["index_copy"], "advanced-index"),
    ("IndexKernel.cu", None, "self_dim_size", ["index_fill"], "advanced-index"),
    ("IndexKernel.cu", None, "sizes[i]", ["index", "index_put"], "advanced-index"),
    ("Indexing.cu", None, "srcSelectDimSize", ["index_select", "embedding"], "index-select"),
    ("Indexing.cu", None, "dstAddDimSize", ["index_add"], "index-add"),
    ("Loss.cu", None, "n_classes", ["cross_entropy", "nll_loss"], "class-id"),
    ("Loss.cu", None, "input_val", ["binary_cross_entropy"], "bce-input"),
    ("Loss.cu", None, "target_val", ["binary_cross_entropy"], "bce-target"),
    ("NLLLoss2d.cu", None, "n_classes", ["cross_entropy", "nll_loss", "nll_loss2d"], "class-id"),
    ("MultiMarginLoss.cu", None, "target_k", ["multi_margin_loss"], "multi-margin"),
    ("EmbeddingBag.cu", None, "end >= begin", ["embedding_bag"], "embedding-bag-offsets"),
    ("EmbeddingBag.cu", None, "input_idx", ["embedding_bag"], "embedding-bag-index"),
    ("MultinomialKernel.cu", None, None, ["multinomial"], "multinomial-kernel"),
    ("Distributions.cu", None, "<= 1", ["bernoulli"], "bernoulli-p"),
    ("LossCTC.cu", None, "num_labels", ["ctc_loss"], "ctc-target"),
]

# Host checks of the same misuses: (path, literal text searched in the file, a line as users see it, ops).
HOST_MESSAGES = [
    ("aten/src/ATen/native/LossNLL.cpp", "is out of bounds.", "IndexError: Target 5 is out of bounds.",
     ["cross_entropy", "nll_loss"]),
    ("aten/src/ATen/native/TensorAdvancedIndexing.cpp", "index out of range in self",
     "IndexError: index out of range in self", ["embedding", "index_select"]),
    ("aten/src/ATen/native/ScatterGatherChecks.h", "is out of bounds for dimension",
     "RuntimeError: index 5 is out of bounds for dimension 1 with size 3",
     ["gather", "scatter", "scatter_add", "scatter_reduce", "index", "index_put"]),
    ("aten/src/ATen/native/Onehot.cpp", "Class values must be smaller than num_classes.",
     "RuntimeError: Class values must be smaller than num_classes.", ["one_hot"]),
    ("aten/src/ATen/native/Loss.cpp", "all elements of input should be between 0 and 1",
     "RuntimeError: all elements of input should be between 0 and 1", ["binary_cross_entropy"]),
]

# Header lines: (a path and a literal that must be in it at the ref, the header line as printed).
HEADERS = [
    ("torch/csrc/Exceptions.h", "AcceleratorError",
     "torch.AcceleratorError: CUDA error: device-side assert triggered"),
    ("c10/cuda/CUDAException.cpp", "device-side assert",
     "RuntimeError: CUDA error: device-side assert triggered"),
]

# Inductor's device-assert templates: (path, literal, a line as users see it).
COMPILED = [
    ("torch/_inductor/codegen/common.py", "index out of bounds: ",
     "Assertion `index out of bounds: 0 <= tmp4 < 50257` failed."),
]


def git(repo: str, *args: str) -> str | None:
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def refs(repo: str, wanted: list[str] | None) -> list[str]:
    if wanted:
        return wanted
    tags = (git(repo, "tag", "--list", "v2.*") or "").split()
    release = [t for t in tags if re.fullmatch(r"v2\.\d+\.\d+", t)]
    release.sort(key=lambda t: tuple(int(x) for x in t[1:].split(".")))
    return release + ["main"]


def strip_comments(src: str) -> str:
    """Blanks // and /* */ comments (keeping string literals), so commented-out asserts do not count."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def first_argument(src: str, start: int) -> str | None:
    """The first macro argument after the `(` at `start`: up to the `,` or `)` at depth 0."""
    depth, i = 0, start
    while i < len(src):
        c = src[i]
        if c == '"':
            i += 1
            while i < len(src) and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return src[start + 1:i]
        elif c == "," and depth == 1:
            return src[start + 1:i]
        i += 1
    return None


def stringified(condition: str) -> str:
    """What `#cond` prints: white space runs collapsed, no leading or trailing space."""
    return re.sub(r"\s+", " ", condition).strip()


KERNEL = re.compile(r"__global__\s+(?:[\w:<>,\s*&]+?\s)?(\w+)\s*\(")
LAMBDA = re.compile(r"\[[=&]?\]\s*(?:C10_DEVICE|GPU_LAMBDA|__device__|__host__\s+__device__)?\s*\(|operator\s*\(\s*\)\s*\(")


def kernel_at(src: str, pos: int) -> str:
    """The function the runtime prints for a site: the nearest enclosing `__global__` function,
    or `operator()` when a lambda or a functor's call operator opens between it and the site."""
    kernels = list(KERNEL.finditer(src, 0, pos))
    start = kernels[-1].end() if kernels else 0
    if LAMBDA.search(src, start, pos) or not kernels:
        return "operator()"
    return kernels[-1].group(1)


def message_of(condition: str) -> str:
    m = re.search(r'"((?:[^"\\]|\\.)*)"', condition)
    return m.group(1) if m else ""


@dataclass
class Fact:
    key: tuple
    fields: dict
    refs: list[str] = field(default_factory=list)


def sites_at(repo: str, ref: str) -> list[tuple]:
    names = git(repo, "ls-tree", "-r", "--name-only", ref, "--", CUDA_DIR) or ""
    out = []
    for path in names.split():
        if not path.endswith((".cu", ".cuh")):
            continue
        raw = git(repo, "show", f"{ref}:{path}")
        if raw is None:
            continue
        src = strip_comments(raw)
        for m in re.finditer(r"\b(" + "|".join(MACROS) + r")\s*\(", src):
            if src[m.start() - 8:m.start()].strip().endswith("#define"):
                continue
            arg = first_argument(src, m.end() - 1)
            if arg is None or arg.strip() in ("cond", "condition"):
                continue
            condition = stringified(arg)
            out.append((path, kernel_at(src, m.start()), condition))
    return out


def map_ops(path: str, kernel: str, condition: str) -> tuple[list[str], str]:
    name = path.rsplit("/", 1)[-1]
    for file, k, cond, ops, explain in OPS:
        if name == file and (k is None or k == kernel) and (cond is None or cond in condition):
            return ops, explain
    return [], ""


def toml_str(s: str) -> str:
    return "'" + s + "'" if "'" not in s and "\n" not in s else '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ranges(all_refs: list[str], seen: list[str]) -> tuple[str, str]:
    idx = sorted(all_refs.index(r) for r in seen)
    return all_refs[idx[0]], all_refs[idx[-1]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="a local clone of pytorch/pytorch with its tags")
    ap.add_argument("--tags", nargs="*", help="the refs to read (default: every v2.x.y tag, then main)")
    a = ap.parse_args()
    if git(a.repo, "rev-parse", "--git-dir") is None:
        print(f"{a.repo}: not a git checkout", file=sys.stderr)
        return 2
    all_refs = refs(a.repo, a.tags)
    facts: dict[tuple, Fact] = {}
    for ref in all_refs:
        if git(a.repo, "rev-parse", "--verify", "--quiet", ref + "^{commit}") is None:
            print(f"skipping {ref}: not in the checkout", file=sys.stderr)
            continue
        print(f"reading {ref}", file=sys.stderr)
        for path, kernel, condition in sites_at(a.repo, ref):
            key = ("site", path, kernel, condition)
            facts.setdefault(key, Fact(key, {"path": path, "kernel": kernel, "condition": condition})).refs.append(ref)
        for path, literal, text, ops in HOST_MESSAGES:
            src = git(a.repo, "show", f"{ref}:{path}")
            if src is not None and literal in src:
                key = ("host", path, text)
                facts.setdefault(key, Fact(key, {"path": path, "text": text, "ops": ops})).refs.append(ref)
        for kind, table in (("header", HEADERS), ("compiled", COMPILED)):
            for path, literal, text in table:
                src = git(a.repo, "show", f"{ref}:{path}")
                if src is not None and literal in src:
                    key = (kind, path, text)
                    facts.setdefault(key, Fact(key, {"path": path, "text": text})).refs.append(ref)
    print("# Generated by tools/kernel_asserts.py from " + ", ".join(all_refs) + ".")
    unmapped = 0
    for kind in ("site", "host", "header", "compiled"):
        for f in (f for f in facts.values() if f.key[0] == kind):
            since, until = ranges(all_refs, f.refs)
            print(f"\n[[{kind}]]")
            for k, v in f.fields.items():
                if k != "ops":
                    print(f"{k} = {toml_str(v)}")
            if kind == "site":
                print(f"message = {toml_str(message_of(f.fields['condition']))}")
            print(f'since = "{since}"\nuntil = "{until}"\nbasis = "source"')
            print("verified_tags = [" + ", ".join(f'"{r}"' for r in f.refs) + "]")
            if kind == "site":
                ops, explain = map_ops(f.fields["path"], f.fields["kernel"], f.fields["condition"])
                unmapped += not ops
                print("ops = [" + ", ".join(f'"{o}"' for o in ops) + "]")
                print(f'explain = "{explain}"')
            elif kind == "host":
                print("ops = [" + ", ".join(f'"{o}"' for o in f.fields["ops"]) + "]")
    if unmapped:
        print(f"{unmapped} site(s) have no ops: add them to OPS in {sys.argv[0]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
