"""Issue 41's sweep: every guarded op of the op table, as each form PyTorch exposes it (torch.*
function, Tensor method, in-place method, functional, module, indexing syntax), compiled
(`fullgraph` off and on; `aot_eager` here, inductor too where marked) with a bad call: the
compiled call must end as the same call does eagerly under `enable()` (refused with the same
rule, or, where PyTorch accepts the call and only the result is garbage, the same TargetWarning),
and the eager verdict itself must be labelguard's (never PyTorch's own error, never nothing).

The table is checked against `labelguard.guarded_ops()`: a site added to the op table without a
form here fails `test_every_site_of_the_op_table_is_swept`.

`test_torch_functions_compile_whole_when_enable_comes_first` runs in a fresh process: there,
`enable()` before torch._dynamo's import left dynamo's map of PyTorch's functions with the
wrappers of that first `enable()` and without PyTorch's builtins, and every torch.* form was a
graph break (an error under fullgraph=True; `labelguard/_trace_rules.py`).
"""

import re
import subprocess
import sys
import warnings

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import labelguard  # noqa: E402
from labelguard import TargetError, TargetWarning  # noqa: E402

pytestmark = pytest.mark.slow  # (about 3 minutes with aot_eager on a loaded 2-core machine)


def _x():
    return torch.randn(3, 5)


BAD = torch.tensor([0, 2, 5])  # 5 is one past the 5 columns of _x()
BAD_COL = BAD.view(-1, 1)

#: form -> (the sites it reaches, the function, its arguments). Each function makes the bad call
#: on its arguments; in-place forms write to a clone, never to an input.
FORMS = {
    "F.cross_entropy": ("torch.nn.functional.cross_entropy", lambda x, t: F.cross_entropy(x, t), (_x(), BAD)),
    "nn.CrossEntropyLoss": ("torch.nn.functional.cross_entropy", lambda x, t: nn.CrossEntropyLoss()(x, t), (_x(), BAD)),
    "F.nll_loss": ("torch.nn.functional.nll_loss", lambda x, t: F.nll_loss(x.log_softmax(1), t), (_x(), BAD)),
    "F.binary_cross_entropy": ("torch.nn.functional.binary_cross_entropy", lambda p, t: F.binary_cross_entropy(p, t), (torch.rand(3), torch.tensor([0.0, 2.0, 1.0]))),
    "F.binary_cross_entropy_with_logits": ("torch.nn.functional.binary_cross_entropy_with_logits", lambda x, t: F.binary_cross_entropy_with_logits(x, t), (torch.randn(3), torch.tensor([0.0, 2.0, 1.0]))),
    "F.kl_div": ("torch.nn.functional.kl_div", lambda x, t: F.kl_div(x, t, reduction="batchmean"), (torch.rand(3, 5).softmax(1), torch.rand(3, 5).softmax(1))),
    "F.embedding": ("torch.nn.functional.embedding", lambda i, w: F.embedding(i, w), (BAD, torch.randn(5, 4))),
    "torch.gather": ("torch.gather", lambda x, i: torch.gather(x, 1, i), (_x(), BAD_COL)),
    "Tensor.gather": ("torch.Tensor.gather", lambda x, i: x.gather(1, i), (_x(), BAD_COL)),
    "torch.scatter": ("torch.scatter", lambda x, i: torch.scatter(x, 1, i, 1.0), (_x(), BAD_COL)),
    "Tensor.scatter": ("torch.Tensor.scatter", lambda x, i: x.scatter(1, i, torch.ones(3, 1)), (_x(), BAD_COL)),
    "Tensor.scatter_": ("torch.Tensor.scatter_", lambda x, i: x.clone().scatter_(1, i, 1.0), (_x(), BAD_COL)),
    "torch.scatter_add": ("torch.scatter_add", lambda x, i: torch.scatter_add(x, 1, i, torch.ones(3, 1)), (_x(), BAD_COL)),
    "Tensor.scatter_add": ("torch.Tensor.scatter_add", lambda x, i: x.scatter_add(1, i, torch.ones(3, 1)), (_x(), BAD_COL)),
    "Tensor.scatter_add_": ("torch.Tensor.scatter_add_", lambda x, i: x.clone().scatter_add_(1, i, torch.ones(3, 1)), (_x(), BAD_COL)),
    "torch.index_select": ("torch.index_select", lambda x, i: torch.index_select(x, 1, i), (_x(), BAD)),
    "Tensor.index_select": ("torch.Tensor.index_select", lambda x, i: x.index_select(1, i), (_x(), BAD)),
    "F.one_hot": ("torch.nn.functional.one_hot", lambda t: F.one_hot(t, 5), (BAD,)),
    "torch.multinomial": ("torch.multinomial", lambda p: torch.multinomial(p, 1), (torch.tensor([[0.5, -0.1, 0.6]]),)),
    "Tensor.multinomial": ("torch.Tensor.multinomial", lambda p: p.multinomial(1), (torch.tensor([[0.5, -0.1, 0.6]]),)),
    "F.ctc_loss": ("torch.nn.functional.ctc_loss", lambda lp, t: F.ctc_loss(lp, t, torch.tensor([6]), torch.tensor([3])), (torch.randn(6, 1, 5).log_softmax(2), torch.tensor([[1, 2, 5]]))),
    "torch.bincount": ("torch.bincount", lambda i: torch.bincount(i), (torch.tensor([0, -1, 2]),)),
    "Tensor.bincount": ("torch.Tensor.bincount", lambda i: i.bincount(), (torch.tensor([0, -1, 2]),)),
    "torch.scatter_reduce": ("torch.scatter_reduce", lambda x, i: torch.scatter_reduce(x, 1, i, torch.ones(3, 1), "sum"), (_x(), BAD_COL)),
    "Tensor.scatter_reduce": ("torch.Tensor.scatter_reduce", lambda x, i: x.scatter_reduce(1, i, torch.ones(3, 1), "amax"), (_x(), BAD_COL)),
    "Tensor.scatter_reduce_": ("torch.Tensor.scatter_reduce_", lambda x, i: x.clone().scatter_reduce_(1, i, torch.ones(3, 1), "sum"), (_x(), BAD_COL)),
    "x[i]": ("torch.Tensor.__getitem__", lambda x, i: x[i], (torch.randn(5, 3), BAD)),
    "x[rows, i]": ("torch.Tensor.__getitem__", lambda x, i: x[torch.arange(3), i], (_x(), BAD)),
    "x[i] = v": ("torch.Tensor.__setitem__", lambda x, i: _setitem(x.clone(), i), (torch.randn(5, 3), BAD)),
    "Tensor.index_put_": ("torch.Tensor.index_put_", lambda x, i: x.clone().index_put_((torch.arange(3), i), torch.ones(())), (_x(), BAD)),
    "Tensor.index_put": ("torch.Tensor.index_put", lambda x, i: x.index_put((torch.arange(3), i), torch.ones(())), (_x(), BAD)),
    "torch.index_put": ("torch.index_put", lambda x, i: torch.index_put(x, [torch.arange(3), i], torch.ones(()), True), (_x(), BAD)),
    "torch.take": ("torch.take", lambda x, i: torch.take(x, i * 10), (_x(), BAD)),
    "Tensor.take": ("torch.Tensor.take", lambda x, i: x.take(i * 10), (_x(), BAD)),
    "Tensor.put_": ("torch.Tensor.put_", lambda x, i: x.clone().put_(i * 10, torch.ones(3)), (_x(), BAD)),
    "Tensor.put": ("torch.Tensor.put", lambda x, i: x.put(i * 10, torch.ones(3), accumulate=True), (_x(), BAD)),
    "Tensor.masked_scatter": ("torch.Tensor.masked_scatter", lambda x, m: x.masked_scatter(m, torch.ones(2)), (_x(), torch.rand(3, 5) > -1)),
    "Tensor.masked_scatter_": ("torch.Tensor.masked_scatter_", lambda x, m: x.clone().masked_scatter_(m, torch.ones(2)), (_x(), torch.rand(3, 5) > -1)),
    "torch.masked_scatter": ("torch.masked_scatter", lambda x, m: torch.masked_scatter(x, m, torch.ones(2)), (_x(), torch.rand(3, 5) > -1)),
    "torch.take_along_dim": ("torch.take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1), (_x(), BAD_COL)),
    "Tensor.take_along_dim": ("torch.Tensor.take_along_dim", lambda x, i: x.take_along_dim(i, 1), (_x(), BAD_COL)),
    "torch.index_add": ("torch.index_add", lambda x, i: torch.index_add(x, 1, i, torch.ones(3, 3)), (_x(), BAD)),
    "Tensor.index_add": ("torch.Tensor.index_add", lambda x, i: x.index_add(1, i, torch.ones(3, 3)), (_x(), BAD)),
    "Tensor.index_add_": ("torch.Tensor.index_add_", lambda x, i: x.clone().index_add_(1, i, torch.ones(3, 3)), (_x(), BAD)),
    "torch.index_copy": ("torch.index_copy", lambda x, i: torch.index_copy(x, 1, i, torch.ones(3, 3)), (_x(), BAD)),
    "Tensor.index_copy": ("torch.Tensor.index_copy", lambda x, i: x.index_copy(1, i, torch.ones(3, 3)), (_x(), BAD)),
    "Tensor.index_copy_": ("torch.Tensor.index_copy_", lambda x, i: x.clone().index_copy_(1, i, torch.ones(3, 3)), (_x(), BAD)),
    "torch.index_fill": ("torch.index_fill", lambda x, i: torch.index_fill(x, 1, i, 0.0), (_x(), BAD)),
    "Tensor.index_fill": ("torch.Tensor.index_fill", lambda x, i: x.index_fill(1, i, 0.0), (_x(), BAD)),
    "Tensor.index_fill_": ("torch.Tensor.index_fill_", lambda x, i: x.clone().index_fill_(1, i, 0.0), (_x(), BAD)),
    "F.embedding_bag": ("torch.nn.functional.embedding_bag", lambda i, w: F.embedding_bag(i, w, torch.tensor([0, 2])), (BAD, torch.randn(5, 4))),
    "F.multi_margin_loss": ("torch.nn.functional.multi_margin_loss", lambda x, t: F.multi_margin_loss(x, t), (_x(), BAD)),
}


def _setitem(x, i):
    x[i] = 1.0
    return x


#: Forms whose eager verdict is a TargetWarning: PyTorch accepts the call (the eager CPU call
#: returns a value) and only the result is garbage. With a dim, torch 2.15's take_along_dim takes
#: the indices modulo the size (LG402, Silent there); BCE with logits takes a target of 2 (LG503);
#: ctc_loss never checks its targets (LG405); kl_div of probabilities (not log-probabilities).
WARNED = {"torch.take_along_dim", "Tensor.take_along_dim", "F.binary_cross_entropy_with_logits", "F.ctc_loss", "F.kl_div"}

#: Forms that PyTorch's own dynamo cannot compile whole, with or without labelguard: ctc_loss
#: is an op with a data-dependent output shape (aten._ctc_loss.Tensor), a graph break of its own;
#: under fullgraph=True the compile fails as it does without labelguard.
NO_FULLGRAPH = {"F.ctc_loss"}

_CODE = re.compile(r"\[(LG\d{3})\]")


def _ending(fn, args):
    """How a call ends: ("refused", rule), ("warned", rule), ("raised", exception type) or
    ("returned", None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(*args)
        except TargetError as err:
            return ("refused", err.code)
        except Exception as err:  # noqa: BLE001 - compared by the caller
            return ("raised", type(err).__name__ + ": " + str(err).splitlines()[0][:200])
    said = [_CODE.search(str(w.message)) for w in caught if issubclass(w.category, TargetWarning)]
    said = [m.group(1) for m in said if m]
    return ("warned", said[0]) if said else ("returned", None)


@pytest.fixture(autouse=True)
def _guards():
    labelguard.enable()
    yield
    labelguard.disable()


def test_every_site_of_the_op_table_is_swept():
    sites = {s for op in labelguard.guarded_ops() for s in op["sites"]}
    assert sites == {site for site, _, _ in FORMS.values()}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_eager_verdict_is_labelguards(form):
    _, fn, args = FORMS[form]
    ending = _ending(fn, args)
    assert ending[0] == ("warned" if form in WARNED else "refused"), ending


BACKENDS = ["aot_eager", pytest.param("inductor", marks=pytest.mark.slow)]


@pytest.mark.parametrize("fullgraph", [False, True], ids=["default", "fullgraph"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_compiled_bad_call_ends_as_eager(form, backend, fullgraph):
    _, fn, args = FORMS[form]
    eager = _ending(fn, args)
    if fullgraph and form in NO_FULLGRAPH:
        labelguard.disable()
        torch._dynamo.reset()
        plain = _ending(torch.compile(fn, backend=backend, fullgraph=True), args)
        labelguard.enable()
        torch._dynamo.reset()
        compiled = _ending(torch.compile(fn, backend=backend, fullgraph=True), args)
        # The same failure (dynamo's Unsupported); with labelguard it names the call's graph
        # break at the wrapper ("torch.compiler.disable()d function"), not the op's.
        assert plain[0] == compiled[0] == "raised" and plain[1].split(":")[0] == compiled[1].split(":")[0] == "Unsupported", (plain, compiled)
        return
    torch._dynamo.reset()
    compiled = _ending(torch.compile(fn, backend=backend, fullgraph=fullgraph), args)
    assert compiled == eager


@pytest.mark.parametrize("backend", ["aot_eager", pytest.param("inductor", marks=pytest.mark.slow)])
def test_torch_functions_compile_whole_when_enable_comes_first(backend):
    """In a fresh process, enable() before the first compile: torch.gather compiles with
    fullgraph=True and its bad call is refused as eagerly. Before issue 41's sweep: "Attempted
    to call function marked as skipped" (inductor), and with `backend="aot_eager"` the compile
    itself failed: torch.compile imported inductor, which imported dynamo, whose arrival enabled
    the guards again and read `torch._inductor.config` from the half-imported package."""
    code = (
        "import torch, labelguard\n"
        "labelguard.enable()\n"
        "g = lambda x, i: torch.gather(x, 1, i).sum()\n"
        f"f = torch.compile(g, backend={backend!r}, fullgraph=True)\n"
        "f(torch.randn(3, 5), torch.tensor([[0], [4], [1]]))\n"
        "for run in (f, g):\n"
        "    try:\n"
        "        run(torch.randn(3, 5), torch.tensor([[0], [5], [1]]))\n"
        "    except labelguard.TargetError as err:\n"
        "        print('refused', err.code)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stdout.split()
    assert said[0::2] == ["refused", "refused"] and said[1] == said[3] and said[1].startswith("LG4"), done.stdout
