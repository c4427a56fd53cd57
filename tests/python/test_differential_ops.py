"""The differential test over every op of core's table, edge shapes included (issue 19):
labelguard's verdict against what PyTorch does with the same call, over a seeded, deterministic
set of calls from differential_ops.GENERATORS."""

from __future__ import annotations

import os

import pytest

import labelguard
from differential_ops import GENERATORS, cases
from test_differential import differential

N_CASES = int(os.environ.get("LABELGUARD_EDGE_CASES", "5000"))
SEED = int(os.environ.get("LABELGUARD_EDGE_SEED", "19"))


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def test_registry_covers_every_op():
    assert set(GENERATORS) == {op["name"] for op in labelguard.guarded_ops()}


def test_every_op_agrees_with_pytorch_at_the_edges(labelguard):
    from labelguard._ops import OPS

    counts, wrong, raised_on_values = differential(labelguard, N_CASES, SEED, generate=cases)
    assert set(counts) == set(GENERATORS)
    assert not wrong, f"{len(wrong)} disagreements of {sum(counts.values())} calls:\n" + "\n".join(wrong[:60])
    assert raised_on_values == {op for op in counts if OPS[op].raises_on_values}  # (as test_differential's)


if __name__ == "__main__":
    import sys

    from conftest import labelguard_bin

    n = int(sys.argv[1]) if len(sys.argv) > 1 else N_CASES
    counts, wrong, _ = differential(labelguard_bin(), n, SEED, generate=cases)
    print(dict(counts))
    print(f"{len(wrong)} disagreements of {sum(counts.values())} calls")
    for w in wrong[:300]:
        print(w)
