"""The op table's `within` (crates/labelguard-core/src/ops/surface.rs) against the checks: a
tensor whose values all lie in a parameter's `within` bounds gets the verdict of any other such
tensor of its shape and dtype. A compiled step relies on it to decide a check once, when it
compiles, where the graph proves a tensor within those bounds (`_placement._settled`): a check
whose verdict moved with values inside the bounds would then pass calls it should refuse."""

import random

import numpy as np
import pytest

import labelguard
from labelguard._ops import OPS

WITHIN = sorted((op.name, param, bounds) for op in OPS.values() for param, bounds in op.within.items())


def test_the_table_gives_bce_targets_and_probabilities_their_bounds():
    assert ("binary_cross_entropy_with_logits", "target", (0.0, 1.0)) in WITHIN
    assert {p for name, p, _ in WITHIN if name == "binary_cross_entropy"} == {"input", "target"}


def _call(r, op):
    """A random call of a BCE-like op: its tensors of one shape, some of them bad."""
    shape = tuple(r.randint(1, 4) for _ in range(r.randint(0, 3)))
    dtype = r.choice([np.float32, np.float64])

    def tensor(kind):
        if kind == "unit":
            return r_np(r, shape, 0.0, 1.0, dtype)
        if kind == "wide":
            return r_np(r, shape, -3.0, 3.0, dtype)
        if kind == "nan":
            t = r_np(r, shape, 0.0, 1.0, dtype)
            t.flat[0] = np.nan
            return t
        return np.asarray(r.choice([0, 1, 255]) * np.ones(shape), dtype=np.int64)

    call = {"input": tensor(r.choice(["unit", "unit", "wide", "nan"])), "target": tensor(r.choice(["unit", "unit", "wide", "nan", "int"]))}
    if r.random() < 0.4:
        call["weight"] = r_np(r, shape, -1.0, 2.0, dtype)
    if op == "binary_cross_entropy_with_logits" and r.random() < 0.3:
        call["pos_weight"] = r_np(r, shape[-1:], -1.0, 2.0, dtype)
    call["reduction"] = r.choice(["mean", "sum", "none"])
    return call


def r_np(r, shape, lo, hi, dtype):
    return np.asarray(np.random.default_rng(r.randrange(2**32)).uniform(lo, hi, shape), dtype=dtype)


def _verdict(op, call):
    report = labelguard.check(op, **call)
    return str(report.verdict), tuple(sorted(f.code for f in report.findings))


@pytest.mark.parametrize("op,param,bounds", WITHIN)
def test_values_within_the_bounds_never_change_the_verdict(op, param, bounds):
    lo, hi = bounds
    r = random.Random(41)
    for _ in range(300):
        call = _call(r, op)
        given = call[param]
        if not np.issubdtype(given.dtype, np.floating):
            continue
        rng = np.random.default_rng(r.randrange(2**32))
        inside = rng.uniform(lo, hi, given.shape).astype(given.dtype)
        if inside.size:
            inside.flat[rng.integers(inside.size)] = r.choice([lo, hi])
        verdicts = {
            name: _verdict(op, {**call, param: value.astype(given.dtype)})
            for name, value in (("zeros", np.zeros(given.shape)), ("at lo", np.full(given.shape, lo)), ("at hi", np.full(given.shape, hi)), ("inside", inside))
        }
        assert len(set(verdicts.values())) == 1, (op, param, {k: v for k, v in call.items() if k != param}, verdicts)
