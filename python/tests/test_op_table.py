"""The op table (crates/labelguard-core/src/ops/table.rs) against PyTorch itself and against every
face that reads it: each site resolves in the installed torch with the row's parameters,
`enable()` wraps exactly the table's sites and modules, `labelguard ops --format json` equals
`labelguard.guarded_ops()`, and the docs that list ops are generated from the table."""

import inspect
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch

import labelguard
from labelguard._ops import OPS

ROOT = pathlib.Path(__file__).resolve().parents[2]
SITES = sorted({(op.name, site) for op in OPS.values() for site in op.sites})


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def _resolve(site):
    obj = sys.modules["torch"]
    for part in site.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _row(op):
    return next(r for r in labelguard.guarded_ops() if r["name"] == op)


def _schemas(attr):
    """The ATen schemas of a builtin: each overload's parameters after `self`, as (name,
    keyword-only, default); PyTorch's Python argument parser accepts exactly these names."""
    return [
        [(a.name, a.kwarg_only, a.default_value) for a in schema.arguments[1:]]
        for schema in torch._C._jit_get_schemas_for_operator("aten::" + attr)
    ]


@pytest.mark.parametrize("op,site", SITES)
def test_every_site_resolves_with_the_rows_parameters(op, site):
    f = _resolve(site)
    if site.endswith("__"):
        return  # x[key], x[key] = v: bound by the key
    row = [(p["name"], p["keyword_only"], p["default"]) for p in _row(op)["params"]]
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):
        signature = None
    if signature is not None and not site.startswith("torch.Tensor."):
        # A Python function (torch.nn.functional): the row is its signature, exactly.
        got = [(p.name, p.kind is p.KEYWORD_ONLY, None if p.default is p.empty else repr(p.default)) for p in signature.parameters.values()]
        assert got == row
        return
    # A builtin: its ATen schemas are the truth (docstrings are not: Tensor.take's says
    # `indices`, but PyTorch takes `index=`). The row's parameters after the first are the union
    # of the overloads' (scatter's `src` and `value` are two overloads), and the row's positional
    # ones are one overload's positional ones, in order, with the schemas' defaults.
    # (`out=` is left out on both sides: never read, and the schemas list it where the Python
    # binding does not take it, bincount's.)
    overloads = [[a for a in o if a[0] != "out"] for o in _schemas(site.rsplit(".", 1)[1])]
    assert overloads, f"{site}: no ATen schema"
    rest = [p for p in row[1:] if p[0] != "out"]
    assert {n for n, _, _ in rest} == {n for o in overloads for n, _, _ in o}, (rest, overloads)
    positional = [n for n, kw, _ in rest if not kw]
    assert any([n for n, kw, _ in o if not kw] == positional for o in overloads), (positional, overloads)
    defaults = {n: repr(d) for o in overloads for n, _, d in o if d is not None}
    assert all(defaults.get(n, d) == d for n, _, d in rest), (rest, defaults)


def test_every_module_is_a_torch_nn_module_whose_forward_is_the_op():
    for op in OPS.values():
        for name in op.modules:
            cls = getattr(torch.nn, name)
            source = inspect.getsource(cls.forward)
            assert f"F.{op.name}(" in source, (name, op.name)


def test_enable_wraps_exactly_the_sites_and_modules_of_the_table():
    labelguard.enable()
    try:
        for _, site in SITES:
            assert hasattr(_resolve(site), "__labelguard_original__") or site.endswith("__"), site
        assert torch.Tensor.__getitem__.__name__ == "labelguard_getitem"
        for op in OPS.values():
            for name in op.modules:
                assert getattr(torch.nn, name).__call__.__name__ == "labelguard_module_call", name
    finally:
        labelguard.disable()
    for _, site in SITES:
        assert not hasattr(_resolve(site), "__labelguard_original__"), site


def test_enable_names_every_op_and_rejects_unknown_ones():
    for op in OPS:
        assert op in labelguard.enable.__doc__
    with pytest.raises(ValueError, match="unknown ops"):
        labelguard.enable(ops=["cross_entropy", "no_such_op"])


def _cli(*args):
    binary = os.environ.get("LABELGUARD_BIN")
    command = [binary, *args] if binary else [sys.executable, "-m", "labelguard", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def test_the_cli_lists_the_ops_guarded_ops_lists():
    assert json.loads(_cli("ops", "--format", "json")) == labelguard.guarded_ops()
    names = [r["name"] for r in labelguard.guarded_ops()]
    assert names == list(OPS) and len(names) == len(set(names))
    text = _cli("ops")
    assert all(re.search(rf"^{n}$", text, re.M) for n in names)


def test_docs_ops_md_is_generated_from_the_table():
    assert (ROOT / "docs" / "ops.md").read_text() == _cli("ops", "--format", "markdown")


def test_every_finding_of_an_op_is_one_of_its_rules():
    """The rules a row declares cover every finding its check gives, over the differential
    test's random calls (every op's boundaries, 60 calls each)."""
    import differential

    declared = {r["name"]: set(r["rules"]) for r in labelguard.guarded_ops()}
    outside = set()
    for case in differential.cases(60 * len(declared), seed=3):
        for f in labelguard.check(case.op, **case.tensors, **case.args).findings:
            if f.code not in declared[case.op]:
                outside.add((case.op, f.code))
    assert outside == set()


def test_a_non_tensor_where_pytorch_wants_one_gets_pytorchs_own_error():
    """The generic wrapper leaves such a call to PyTorch (before: labelguard's own ValueError,
    'scatter_add needs a tensor named src')."""
    x, idx = torch.zeros(3, 4), torch.tensor([[0, 1], [1, 2]])
    calls = [
        lambda: torch.scatter_add(x, 1, idx, 2.0),
        lambda: x.index_put_((torch.tensor([0]),), 1.0),
        lambda: torch.nn.functional.cross_entropy(torch.randn(2, 3), [0, 1]),
        lambda: torch.nn.functional.multi_margin_loss(torch.randn(2, 3), torch.tensor([0, 1]), weight=[1.0, 1.0, 1.0]),
    ]
    with labelguard.enabled():
        for call in calls:
            with pytest.raises((TypeError, AttributeError)) as raised:
                call()
            assert "labelguard" not in str(raised.value)
