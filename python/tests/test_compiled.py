"""enable() under torch.compile: the check is an op of the compiled graph. A bad call raises the
eager TargetError at run time, before the kernel, naming the line inside the compiled code; a
valid call's output is bit-identical to the same compiled function without labelguard; enabling
adds no graph break and no recompilation (dynamo's own counters, compared with labelguard off).

Most graphs go through `aot_eager` (dynamo and AOTAutograd, the stages that decide what the graph
holds, in a fraction of inductor's time); a few through inductor, which compiles C++.
"""

import os
import sys
import traceback
import warnings

import pytest
import torch
import torch._dynamo as dynamo
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.utils import counters
from torch.utils._python_dispatch import TorchDispatchMode

import labelguard
from labelguard import TargetError, TargetWarning

HERE = os.path.basename(__file__)


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def line_of(fn, text):
    """The line of `fn`'s source holding `text` (where the bad call is made)."""
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, l in enumerate(lines) if text in l)


def compiled_run(fn, args, enable, **options):
    """fn compiled from scratch, run on each argument tuple: outputs (or the exception) and the
    graph breaks, graphs and recompilations dynamo counted."""
    dynamo.reset()
    counters.clear()
    if enable:
        labelguard.enable()
    try:
        compiled = torch.compile(fn, **{"backend": "aot_eager", **options})
        results = []
        for a in args:
            torch.manual_seed(0)  # (dropout)
            try:
                results.append(compiled(*a))
            except Exception as err:  # noqa: BLE001 - compared below
                results.append(err)
    finally:
        labelguard.disable()
    seen = (sum(counters["graph_break"].values()), counters["stats"]["unique_graphs"], sum(counters["recompiles"].values()))
    return results, seen


def ce(x, t):
    return F.cross_entropy(x, t)


def embedding(ids, w):
    return F.embedding(ids, w)


def gather(x, idx):
    return x.gather(1, idx).sum() + torch.gather(x, 1, idx).sum()


def one_hot(t):
    return F.one_hot(t, 4).sum(0)


def index_select_nll(x, t):
    return F.nll_loss(x.log_softmax(1), t) + x.index_select(1, t).sum()


def take(x, idx):
    return torch.take(x, idx)


def loss_built_in_forward(x, t):
    loss_fct = nn.CrossEntropyLoss()  # transformers' heads: dynamo records a call of F.cross_entropy
    return loss_fct(x.view(-1, 3), t.view(-1))


def gather_on_computed(x, idx):
    return x.log_softmax(1).gather(1, idx).sum()  # a method of a tensor made inside the compiled code


def advanced_index(x, idx):
    return x[idx].sum()  # dynamo traces it itself; AOTAutograd's replay reaches the wrapper


def advanced_index_put(x, idx, v):
    y = x * 2
    y[idx] = v
    return y.sum()


def picked_log_probs(x, t):
    return -x.log_softmax(1)[torch.arange(x.shape[0]), t].mean()  # a tuple key: rows and labels


def sliced_index(x, idx):
    return x[1:, idx].sum() + x[..., idx].sum()  # a slice and an ellipsis beside the index


def sliced_index_put(x, idx, v):
    y = x * 2
    y[:, idx] = v
    return y.sum()


def index_put_tuple(x, t):
    return torch.zeros_like(x).index_put_((torch.arange(x.shape[0]), t), torch.ones(())).sum()  # a one-hot


def index_put_list(x, t):
    return torch.index_put(x, [torch.arange(x.shape[0]), t], torch.ones(()), accumulate=True).sum()


def bce(p, t):
    return F.binary_cross_entropy(p, t)  # only float tensors read: the check must still run first


# name: (fn, valid arguments, bad arguments, rule, the text of the bad call's line)
CASES = {
    "cross_entropy": (ce, (torch.randn(4, 3), torch.tensor([0, 2, 1, 1])), (torch.randn(4, 3), torch.tensor([0, 3, 1, 1])), "LG101", "F.cross_entropy"),
    "embedding": (embedding, (torch.tensor([[1, 9]]), torch.randn(10, 4)), (torch.tensor([[1, 12]]), torch.randn(10, 4)), "LG401", "F.embedding"),
    "embedding_negative": (embedding, (torch.tensor([[0, 3]]), torch.randn(10, 4)), (torch.tensor([[-1, 3]]), torch.randn(10, 4)), "LG", "F.embedding"),
    "gather": (gather, (torch.randn(3, 3), torch.tensor([[0], [2], [1]])), (torch.randn(3, 3), torch.tensor([[0], [5], [1]])), "LG", "x.gather"),
    "one_hot": (one_hot, (torch.tensor([0, 3, 1]),), (torch.tensor([0, 4, 1]),), "LG", "F.one_hot"),
    "nll_index_select": (index_select_nll, (torch.randn(3, 5), torch.tensor([0, 4, 2])), (torch.randn(3, 5), torch.tensor([0, 5, 2])), "LG", "F.nll_loss"),
    "take": (take, (torch.randn(2, 3), torch.tensor([5, 0])), (torch.randn(2, 3), torch.tensor([6, 0])), "LG", "torch.take"),
    "loss_built_in_forward": (loss_built_in_forward, (torch.randn(4, 3), torch.tensor([0, 2, 1, 1])), (torch.randn(4, 3), torch.tensor([0, 3, 1, 1])), "LG101", "loss_fct(x"),
    "gather_on_computed": (gather_on_computed, (torch.randn(3, 3), torch.tensor([[0], [2], [1]])), (torch.randn(3, 3), torch.tensor([[0], [5], [1]])), "LG4", ".gather(1, idx)"),
    "advanced_index": (advanced_index, (torch.randn(5, 3), torch.tensor([0, 4, 2])), (torch.randn(5, 3), torch.tensor([0, 5, 2])), "LG409", "x[idx]"),
    "advanced_index_put": (advanced_index_put, (torch.randn(5, 3), torch.tensor([0, 4, 2]), torch.randn(3, 3)), (torch.randn(5, 3), torch.tensor([0, 5, 2]), torch.randn(3, 3)), "LG409", "y[idx] = v"),
    "picked_log_probs": (picked_log_probs, (torch.randn(4, 3), torch.tensor([0, 2, 1, 1])), (torch.randn(4, 3), torch.tensor([0, 3, 1, 1])), "LG4", "x.log_softmax(1)["),
    "sliced_index": (sliced_index, (torch.randn(5, 3), torch.tensor([0, 2, 2])), (torch.randn(5, 3), torch.tensor([0, 3, 2])), "LG4", "x[1:, idx]"),
    "sliced_index_put": (sliced_index_put, (torch.randn(5, 3), torch.tensor([0, 2]), torch.tensor(1.0)), (torch.randn(5, 3), torch.tensor([0, 3]), torch.tensor(1.0)), "LG409", "y[:, idx] = v"),
    "index_put_tuple": (index_put_tuple, (torch.randn(4, 3), torch.tensor([0, 2, 1, 1])), (torch.randn(4, 3), torch.tensor([0, 3, 1, 1])), "LG41", ".index_put_(("),
    "index_put_list": (index_put_list, (torch.randn(4, 3), torch.tensor([0, 2, 1, 1])), (torch.randn(4, 3), torch.tensor([0, 3, 1, 1])), "LG41", "torch.index_put("),
    "bce_target_above_one": (bce, (torch.rand(4), torch.rand(4)), (torch.rand(4), torch.tensor([0.0, 2.0, 1.0, 0.5])), "LG502", "F.binary_cross_entropy"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_bad_call_raises_at_its_line_and_valid_call_is_identical(name):
    fn, valid, bad, code, text = CASES[name]
    plain, plain_seen = compiled_run(fn, [valid, bad], False, dynamic=True, fullgraph=True)
    (out, err), seen = compiled_run(fn, [valid, bad], True, dynamic=True, fullgraph=True)
    assert torch.equal(out, plain[0])
    assert seen == plain_seen  # no graph break, no other graph, no recompilation
    assert isinstance(err, TargetError), repr(err)
    assert err.code.startswith(code), str(err)
    assert f"torch.compile'd code at {__file__}:{line_of(fn, text)}" in str(err), str(err)
    assert "torchinductor" not in str(err) and "eval_with_key" not in str(err)
    assert err.call_site.user == (__file__, line_of(fn, text))
    assert_ends_at(err, fn.__name__, line_of(fn, text))


def assert_ends_at(err, function, line, file=__file__):
    """The refusal's traceback ends at the user's line (a user reads the last frame first), and
    no frame of labelguard, AOTAutograd or inductor, nor dynamo's past its wrapper, is left."""
    frames = traceback.extract_tb(err.__traceback__)
    assert (frames[-1].filename, frames[-1].lineno, frames[-1].name) == (file, line, function), frames
    # labelguard's frames by the installed package's directory: the clone's own path holds
    # "labelguard/" too (CI clones into .../labelguard/).
    package = os.path.dirname(labelguard.__file__) + os.sep
    inner = [f.filename for f in frames if f.filename.startswith(package) or os.sep + "_functorch" + os.sep in f.filename or os.sep + "_inductor" + os.sep in f.filename or "torchinductor" in f.filename]
    assert not inner, frames
    # Dynamo's frames: only the ones that called the compiled function (a compiled module's
    # __call__), the last its wrapper, right before the user's line.
    assert frames[-2].name == "compile_wrapper", frames
    assert all(f.filename.endswith("eval_frame.py") for f in frames if os.sep + "_dynamo" + os.sep in f.filename), frames


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_valid_call_is_never_sent_to_eager_code_by_the_shape_probe(name):
    """Without fullgraph the trace-time probe runs on every call (static shapes: the exact
    sizes); a valid call must compile as without labelguard, with no added graph break."""
    fn, valid, _, _, _ = CASES[name]
    plain, plain_seen = compiled_run(fn, [valid], False)
    out, seen = compiled_run(fn, [valid], True)
    assert torch.equal(out[0], plain[0]) and seen == plain_seen


def test_no_recompilation_when_shapes_change():
    """dynamic=True: the shapes reach the check as SymInts, never as guards."""
    calls = [(torch.randn(n, 5), torch.randint(0, 5, (n,))) for n in (4, 7, 9)]
    plain, plain_seen = compiled_run(index_select_nll, calls, False, dynamic=True)
    checked, seen = compiled_run(index_select_nll, calls, True, dynamic=True)
    assert seen == plain_seen and seen[1] == 1
    assert all(torch.equal(a, b) for a, b in zip(plain, checked))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 8)
        self.head = nn.Linear(8, 3)
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, ids, labels):
        logits = self.head(self.emb(ids).mean(1))
        return self.criterion(logits, labels), logits


def training_step(model, ids, labels):
    loss, logits = model(ids, labels)
    loss.backward()
    return loss.detach(), logits.detach(), model.head.weight.grad.clone()


def test_inductor_runs_the_check_before_its_kernel_with_several_threads():
    """Inductor keeps the op (its generated code calls it) and runs it before the fused loss
    kernel: with two threads that kernel's own bounds check would abort the process."""
    from torch._inductor.utils import run_and_get_code

    torch.manual_seed(0)
    model = Classifier()
    ids, labels = torch.randint(0, 30, (4, 6)), torch.tensor([0, 2, 1, 1])
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        dynamo.reset()
        plain = training_step(torch.compile(model, backend="inductor", fullgraph=True, dynamic=True), ids, labels)
        model.zero_grad()
        dynamo.reset()
        labelguard.enable()
        compiled = torch.compile(model, backend="inductor", fullgraph=True, dynamic=True)
        checked, code = run_and_get_code(training_step, compiled, ids, labels)
        assert "torch.ops.labelguard.check_through.default" in "\n".join(code)
        for a, b in zip(plain, checked):
            assert torch.equal(a, b)
        with pytest.raises(TargetError) as info:
            compiled(ids, torch.tensor([0, 3, 1, 1]))
        with pytest.raises(TargetError, match="LG401"):
            compiled(torch.full((4, 6), 30), labels)
    finally:
        labelguard.disable()
        torch.set_num_threads(threads)
    assert info.value.code == "LG101"
    assert f"at {__file__}:{line_of(Classifier.forward, 'self.criterion')}" in str(info.value)
    assert_ends_at(info.value, "forward", line_of(Classifier.forward, "self.criterion"))  # past inductor's frames


def test_valid_compiled_steps_check_natively_and_a_bad_one_takes_the_general_path(monkeypatch):
    """Under inductor a valid step's checks are one native test per `check_through` call
    (`_native.Through`, with dynamic sizes too): no call is rebuilt in Python (`_Plan.call`),
    which cost a small step more than the check, and inductor's code reaches the op's kernel
    without torch's dispatcher (`_call_directly`). A bad batch falls to the general path, which
    refuses it with its rule."""
    from labelguard import _compiled

    rebuilt, callers = [], []
    original = _compiled._Plan.call
    monkeypatch.setattr(_compiled._Plan, "call", lambda self, *a: rebuilt.append(self.key) or original(self, *a))
    through_of = _compiled._through_of  # (the kernel's caller: `_call_directly`'s, or the dispatcher's caller)
    monkeypatch.setattr(_compiled, "_through_of", lambda spec: callers.append(os.path.basename(sys._getframe(3).f_code.co_filename)) or through_of(spec))
    torch.manual_seed(0)
    model = Classifier()
    dynamo.reset()
    labelguard.enable()
    try:
        compiled = torch.compile(model, backend="inductor", dynamic=True)
        training_step(compiled, torch.randint(0, 30, (4, 6)), torch.randint(0, 3, (4,)))
        rebuilt.clear()  # (the trace-time shape probe rebuilds each call once)
        callers.clear()
        for n in (5, 6):
            training_step(compiled, torch.randint(0, 30, (n, 6)), torch.randint(0, 3, (n,)))
        assert rebuilt == []
        assert callers and set(callers) == {"_compiled.py"}  # inductor's code reached the kernel without the dispatcher
        with pytest.raises(TargetError, match="LG401"):
            compiled(torch.full((4, 6), 30), torch.tensor([0, 2, 1, 1]))
    finally:
        labelguard.disable()
    assert "torch.nn.functional.embedding" in rebuilt


def test_warn_mode_warns_at_the_compiled_line_outside_traced_code():
    """mode='warn': a TargetWarning at run time (dynamo traces no warning: no graph break),
    pointing at the user's line inside the compiled function; then the call runs as PyTorch's."""
    dynamo.reset()
    counters.clear()
    labelguard.enable(mode="warn")
    try:
        compiled = torch.compile(ce, backend="aot_eager", fullgraph=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises((IndexError, RuntimeError)):  # PyTorch's own CPU error, after the warning
                compiled(torch.randn(4, 3), torch.tensor([0, 3, 1, 1]))
    finally:
        labelguard.disable()
    assert not counters["graph_break"]
    (w,) = [w for w in caught if issubclass(w.category, TargetWarning)]
    assert (w.filename, w.lineno) == (__file__, line_of(ce, "F.cross_entropy")) and "LG101" in str(w.message)


def test_the_op_is_kept_out_of_cuda_graphs():
    """mode="reduce-overhead": the op is tagged cudagraph_unsafe, so inductor's graph partition
    runs it eagerly between the CUDA graphs (every replay checks the step's tensors). On the CPU
    there is no CUDA graph: the mode compiles and checks like the default one."""
    from torch._inductor.utils import is_cudagraph_unsafe_fx_node

    labelguard.enable()
    ops = torch.ops.labelguard
    for op in (ops.check.default, ops.check_through.default, ops.check_one.default):
        assert torch.Tag.cudagraph_unsafe in op.tags
        graph = torch.fx.Graph()
        node = graph.call_function(op, ([], [], [], "{}"))
        assert is_cudagraph_unsafe_fx_node(node)
    dynamo.reset()
    compiled = torch.compile(ce, backend="inductor", mode="reduce-overhead")
    x, t = torch.randn(4, 3), torch.tensor([0, 2, 1, 1])
    labelguard.disable()
    plain = ce(x, t)
    labelguard.enable()
    assert torch.equal(compiled(x, t), plain)
    with pytest.raises(TargetError, match="LG101"):
        compiled(x, torch.tensor([0, 3, 1, 1]))


class _Seen(TorchDispatchMode):
    """Records the ops it sees, and runs them."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func)
        return func(*args, **(kwargs or {}))


def _through_spec(key, slots):
    import json

    check = json.dumps({"key": key, "slots": slots, "names": [], "frames": []})
    return json.dumps({"checks": [[check, [0], 2, 0]]})


def test_the_op_skips_the_dispatcher_only_for_plain_tensors_outside_any_mode(monkeypatch):
    """Inductor's code calls `check_through` and `check_one` between its kernels; with plain
    tensors and no mode the call runs the kernel itself (`_compiled._call_directly`), which gets
    the caller's own spec string, where the dispatcher would hand it a converted copy. Anything
    torch must see goes through the dispatcher: a dispatch mode, fake tensors, the profiler, an
    input that needs a gradient in grad mode, a functorch transform (vmap: torch's own refusal).
    With the profiler on, the kernel runs directly, inside an event of the op's name. Both
    ways, a valid call leaves the tensor it holds as it was and a bad one is refused."""
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    from labelguard import _compiled

    labelguard.enable()
    try:
        specs = []
        original = _compiled._through_of
        monkeypatch.setattr(_compiled, "_through_of", lambda s: specs.append(s) or original(s))
        op, one = torch.ops.labelguard.check_through.default, torch.ops.labelguard.check_one.default
        spec = _through_spec("torch.nn.functional.cross_entropy", [["s", "float32", 2], ["t", 0]])
        labels = torch.tensor([0, 2, 1])

        def directly(call):
            specs.clear()
            out = call()
            return specs[-1] is spec, out

        assert directly(lambda: op([labels], [], [3, 3], [], spec)) == (True, None)
        direct, out = directly(lambda: one([labels], [3, 3], [], spec))
        assert direct and out.dtype == torch.bool and out.shape == () and bool(out)

        with _Seen() as mode:
            assert directly(lambda: op([labels], [], [3, 3], [], spec)) == (False, None)
        assert op in mode.ops and torch.equal(labels, torch.tensor([0, 2, 1]))
        with FakeTensorMode() as fake:
            out = one([fake.from_tensor(labels)], [3, 3], [], spec)
        assert isinstance(out, FakeTensor)
        with torch.autograd.profiler.profile() as prof:
            direct, _ = directly(lambda: op([labels], [], [3, 3], [], spec))
        assert direct and any(e.name == "labelguard::check_through" for e in prof.function_events)  # (its kernel, as its own event)
        with torch.inference_mode():
            made_in_inference = torch.tensor([0, 2, 1])
        with torch.autograd.profiler.profile():
            assert op([made_in_inference], [], [3, 3], [], spec) is None  # (through the dispatcher: "do not track version counter")
        nothing = _through_spec("(none)", [])
        spec = nothing
        weights = torch.ones(3, requires_grad=True)
        assert not directly(lambda: op([], [weights], [3, 3], [], nothing))[0]
        with torch.no_grad():
            assert directly(lambda: op([], [weights], [3, 3], [], nothing))[0]
        with pytest.raises(RuntimeError, match="Batching rule not implemented"):  # (the dispatcher's answer, as before)
            torch.func.vmap(lambda w: one([w], [3, 3], [], nothing))(torch.ones(2, 3))
        bad = _through_spec("torch.nn.functional.cross_entropy", [["s", "float32", 2], ["t", 0]])
        for context in (torch.no_grad, _Seen):
            with context(), pytest.raises(TargetError, match="LG101"):
                op([torch.tensor([0, 3, 1])], [], [3, 3], [], bad)
            with context(), pytest.raises(TargetError, match="LG101"):
                one([torch.tensor([0, 3, 1])], [3, 3], [], bad)
    finally:
        labelguard.disable()


def test_a_graph_input_on_the_cpu_is_held_by_the_ops_write_and_any_other_tensor_by_a_one():
    """`_placement._holding`: a check that reads an input of the graph on the CPU holds its
    readers back by `check_through`'s declared write; one that reads only tensors the graph
    computes, or an input on another device (the meta device stands in for a GPU here, whose
    CUDA graphs and input realignment a declared write would change), by `check_one`'s 0-d
    True."""
    from labelguard._placement import _holding

    graph = torch.fx.Graph()
    cpu, gpu = graph.placeholder("labels"), graph.placeholder("labels_on_gpu")
    cpu.meta["val"] = torch.empty(3, dtype=torch.long)
    gpu.meta["val"] = torch.empty(3, dtype=torch.long, device="meta")
    computed = graph.call_function(torch.ops.aten.neg.default, (cpu,))
    computed.meta["val"] = torch.empty(3, dtype=torch.long)
    assert _holding([cpu]) == "held" and _holding([computed, cpu]) == "held"
    assert _holding([computed]) == "one" and _holding([gpu]) == "one" and _holding([cpu, gpu]) == "one"


def test_an_index_proven_in_range_is_read_as_zeros_of_its_sizes_by_both_paths():
    """A placed check's index list may give an index by its sizes (`_placement._index_zeros`:
    the graph proved it within the dim it indexes): the native path (`_native.Through`) and the
    general one (`_Plan.call`, after a finding) both read it as zeros of those sizes, and
    judge the tensors read beside it as before: `target.index_put_((arange(4), labels), 1)`
    with a label of 5 for 5 columns is refused for that label, named as the second index."""
    import json

    from labelguard import _compiled

    slots = [["s", "float32", 2], ["tl", 0, 1, True, [["int64", 1], None]], ["s", "float32", 0]]
    check = json.dumps({"key": "torch.Tensor.index_put_", "slots": slots, "names": [], "frames": []})
    spec = json.dumps({"checks": [[check, [0], 4, 0]]})  # (dims: the target's 4x5, the zeros' 4)
    plan = _compiled._plan_of(check)
    labels = torch.tensor([0, 4, 2, 1])
    args, _ = plan.call([labels], [4, 5, 4], [])
    rows, again = args[1]
    assert type(args[1]) is tuple and again is labels and rows.shape == (4,) and rows.dtype == torch.long and not rows.any()
    labelguard.enable()
    try:
        op = torch.ops.labelguard.check_through.default
        native = _compiled._through_of(spec).native()
        assert native is not None and native.valid([labels], [4, 5, 4], [])
        assert op([labels], [], [4, 5, 4], [], spec) is None
        bad = torch.tensor([0, 5, 2, 1])
        assert not native.valid([bad], [4, 5, 4], [])
        with pytest.raises(TargetError, match=r"(?s)LG4\d\d.*index1"):
            op([bad], [], [4, 5, 4], [], spec)
    finally:
        labelguard.disable()


LAYOUTS = {
    "contiguous": lambda: torch.arange(12).view(3, 4) % 3,
    "sliced (LM labels[:, 1:])": lambda: (torch.arange(12).view(3, 4) % 3)[:, 1:],
    "transposed": lambda: (torch.arange(12).view(3, 4) % 3).t(),
    "expanded (stride 0)": lambda: (torch.arange(4) % 3).expand(3, 4),
    "a size-1 dim of any stride": lambda: (torch.arange(4) % 3).as_strided((1, 4), (100, 1)),
    "every other element": lambda: (torch.arange(12) % 3)[::2],
    "empty": lambda: torch.empty(0, 3, dtype=torch.long),
    "0-d": lambda: torch.tensor(2),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_check_through_never_writes_the_tensors_it_holds(layout):
    """`check_through`'s schema says it writes its `held` tensors (the graph's inputs it
    checks), so that inductor runs their readers after it; it never writes them: values,
    storage, strides and version counter stay as they were, valid or refused, with or without
    the dispatcher. The check reads each layout as it is (a bad label anywhere is found)."""
    import json

    op = torch.ops.labelguard.check_through.default
    labelguard.enable()
    try:
        for bad in (False, True):
            t = LAYOUTS[layout]()
            if bad and t.numel():
                t = t.clone()
                t[(-1,) * t.dim()] = 3  # (a class id out of range, at the clone's own strides)
            before, version, layout_of = t.clone(), t._version, (t.data_ptr(), t.stride())
            check = json.dumps({"key": "torch.nn.functional.cross_entropy", "slots": [["s", "float32", 1 + t.dim()], ["t", 0]], "names": [], "frames": []})
            spec = json.dumps({"checks": [[check, [0], 1 + t.dim(), 0]]})
            sizes = [*t.shape[:1], 3, *t.shape[1:]] if t.dim() else [3]
            for context in (torch.no_grad, _Seen):  # (directly; through the dispatcher)
                with context():
                    if bad and t.numel():
                        with pytest.raises(TargetError, match="LG101"):
                            op([t], [], sizes, [], spec)
                    else:
                        assert op([t], [], sizes, [], spec) is None
            assert torch.equal(t, before) and t._version == version and (t.data_ptr(), t.stride()) == layout_of
    finally:
        labelguard.disable()


def embedding_loss(ids, w, t):
    return F.cross_entropy(F.embedding(ids, w).sum(1), t)


def test_max_autotune_dynamic_compiles_the_check_in_and_agrees():
    ids, w, t = torch.tensor([[1, 2], [3, 0]]), torch.randn(5, 3), torch.tensor([2, 0])
    calls = [(ids, w, t), (torch.tensor([[1, 5], [3, 0]]), w, t), (ids, w, torch.tensor([3, 0]))]
    options = dict(backend="inductor", mode="max-autotune-no-cudagraphs", dynamic=True, fullgraph=True)
    plain, plain_seen = compiled_run(embedding_loss, calls[:1], False, **options)
    (out, bad_id, bad_label), seen = compiled_run(embedding_loss, calls, True, **options)
    assert torch.equal(out, plain[0]) and seen == plain_seen
    assert isinstance(bad_id, TargetError) and bad_id.code == "LG401", repr(bad_id)
    assert isinstance(bad_label, TargetError) and bad_label.code == "LG101", repr(bad_label)
    for err in (bad_id, bad_label):
        assert_ends_at(err, "embedding_loss", line_of(embedding_loss, "F.cross_entropy"))


def gather_on_input(x, idx):
    return x.gather(1, idx).sum()


@pytest.mark.parametrize("fn", [ce, gather_on_input, gather_on_computed, loss_built_in_forward, picked_log_probs])
def test_aotautograd_replaying_the_graph_puts_in_exactly_one_check(fn):
    """AOTAutograd runs dynamo's graph again: a node that a wrapper made after its check (a
    tensor method's call_method node reaches the wrapper again) adds no second check, and a node
    that calls a wrapper dynamo never traced (a method of a computed tensor, a loss module built
    in forward) gets its one check there."""
    from torch._dynamo.backends.common import aot_autograd

    graphs = []
    backend = aot_autograd(fw_compiler=lambda gm, _: graphs.append(gm) or gm)
    labelguard.enable()
    try:
        dynamo.reset()
        x, idx = torch.randn(4, 3, requires_grad=True), torch.tensor([0, 2, 1, 1])
        torch.compile(fn, backend=backend, fullgraph=True)(x, idx if fn in (ce, loss_built_in_forward, picked_log_probs) else idx[:, None])
    finally:
        labelguard.disable()
    assert [n.target for n in graphs[0].graph.nodes].count(torch.ops.labelguard.check.default) == 1


def test_torchs_own_decompositions_are_not_checked_while_a_node_is_replayed():
    """AOTAutograd runs inductor's decompositions while it replays a node: max_pool2d's backward
    becomes a `scatter_add` on a tensor computed there. That call is torch's, not the user's: the
    graphs hold one check, the loss's (a check of it cost the step milliseconds)."""
    from torch._dynamo.backends.common import aot_autograd
    import torch._inductor.lowering  # noqa: F401 - what the decomposition table refers to
    from torch._inductor.decomposition import select_decomp_table

    graphs = []
    keep = lambda gm, _: graphs.append(gm) or gm  # noqa: E731
    backend = aot_autograd(fw_compiler=keep, bw_compiler=keep, decompositions=select_decomp_table())
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 5))
    labelguard.enable()
    try:
        dynamo.reset()
        loss = torch.compile(lambda x, t: F.cross_entropy(model(x), t), backend=backend)(torch.randn(2, 3, 8, 8), torch.tensor([0, 4]))
        loss.backward()
    finally:
        labelguard.disable()
    checks = [n for g in graphs for n in g.graph.nodes if n.target == torch.ops.labelguard.check.default]
    assert len(graphs) == 2 and len(checks) == 1, [g.graph for g in graphs]


def ctc(lp, targets, input_lengths, target_lengths):
    return F.ctc_loss(lp, targets, input_lengths, target_lengths)


def test_an_op_dynamo_cannot_trace_is_checked_after_its_graph_break_and_adds_none():
    """aten._ctc_loss has a data-dependent shape: dynamo breaks the graph at the call and runs
    it eagerly, where the wrapper checks it; no graph of labelguard's own is made before it."""
    lp = torch.randn(12, 2, 5).log_softmax(2)
    lengths = (torch.tensor([12, 12]), torch.tensor([3, 3]))
    valid, bad = (lp, torch.tensor([[1, 2, 3], [4, 1, 2]]), *lengths), (lp, torch.tensor([[1, 2, 3], [4, 5, 2]]), *lengths)
    plain, plain_seen = compiled_run(ctc, [valid, bad], False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (out, after), seen = compiled_run(ctc, [valid, bad], True)
    assert torch.equal(out, plain[0]) and seen == plain_seen
    assert [str(w.message)[:40] for w in caught if issubclass(w.category, TargetWarning)], "the bad call was not checked"


def test_an_artifact_compiled_without_labelguard_is_not_served_to_a_run_with_it():
    """AOTAutograd's cache keys on dynamo's graph, which the checks put in during its replay
    (here `x[idx]`'s) leave unchanged: enable() switches that cache off, so a warm cache from a run
    without labelguard cannot hand back the graph without the check."""
    x, bad = torch.randn(5, 3), torch.tensor([0, 5, 2])
    compiled_run(advanced_index, [(x, torch.tensor([0, 4, 2]))], False, backend="inductor")
    (err,), _ = compiled_run(advanced_index, [(x, bad)], True, backend="inductor")
    assert isinstance(err, TargetError) and err.code == "LG409", repr(err)
    assert torch._functorch.config.enable_autograd_cache  # restored by disable()


def test_inductor_keeps_a_check_that_reads_only_float_tensors():
    """BCE's check reads its probabilities and targets, both float: they reach the kernel times
    the check's ones, so inductor neither drops the check as dead code nor runs the loss first."""
    p, t, bad = torch.rand(4), torch.rand(4), torch.tensor([0.0, 2.0, 1.0, 0.5])
    (out, err), seen = compiled_run(bce, [(p, t), (p, bad)], True, backend="inductor")
    (plain, _), plain_seen = compiled_run(bce, [(p, t), (p, bad)], False, backend="inductor")
    assert isinstance(err, TargetError) and err.code == "LG502", repr(err)
    assert torch.equal(out, plain) and seen == plain_seen


# --- real libraries, compiled ----------------------------------------------------------------


def library_case(make, valid, bad, code, library_call, **options):
    """make() builds a random-init model and returns fn(*args) -> tensor. Compiled without and
    with labelguard: the valid call bit-identical with the same counters, the bad one refused
    with `code`, the library call and this file's line."""
    torch.manual_seed(0)
    fn = make()
    plain, plain_seen = compiled_run(fn, [valid, bad], False, **options)
    (out, err), seen = compiled_run(fn, [valid, bad], True, **options)
    assert torch.equal(out, plain[0]) and seen == plain_seen
    assert isinstance(err, TargetError) and err.code == code, repr(err)
    if library_call:
        assert f"your code: {HERE}:" in str(err) and library_call in str(err), str(err)
    assert err.call_site.user[0] == __file__
    last = traceback.extract_tb(err.__traceback__)[-1]  # the user's line that called the library
    assert (last.filename, last.lineno) == tuple(err.call_site.user[:2]), traceback.format_tb(err.__traceback__)
    return err


def test_compiled_bert_token_id_beyond_the_vocabulary():
    import transformers

    def make():
        config = transformers.BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                         intermediate_size=32, max_position_embeddings=32, type_vocab_size=2)
        model = transformers.BertForSequenceClassification(config).eval()
        return lambda ids: model(input_ids=ids).logits

    ids = torch.randint(0, 50, (2, 8))
    bad = ids.clone()
    bad[1, 3] = 53
    err = library_case(make, (ids,), (bad,), "LG401", "transformers BertEmbeddings.forward → embedding", fullgraph=True, dynamic=True)
    assert "model.resize_token_embeddings(len(tokenizer))" in str(err)


def test_compiled_gpt2_training_step_with_labels_beyond_the_vocabulary():
    """The loss is computed inside transformers (its loss function calls F.cross_entropy)."""
    import transformers

    def make():
        config = transformers.GPT2Config(vocab_size=60, n_positions=16, n_embd=16, n_layer=1, n_head=2)
        model = transformers.GPT2LMHeadModel(config)

        def step(ids, labels):
            loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            return loss.detach()

        return step

    ids = torch.randint(0, 60, (2, 12))
    labels = ids.clone()
    labels[1, 4] = 64  # a token added to the tokenizer, not to the model
    library_case(make, (ids, ids), (ids, labels), "LG101", "transformers fixed_cross_entropy → cross_entropy", fullgraph=False)


def test_compiled_torchvision_classifier_with_labels_beyond_num_classes():
    import torchvision

    def make():
        model = torchvision.models.mobilenet_v3_small(num_classes=5)
        return lambda x, y: F.cross_entropy(model(x), y)

    x = torch.randn(2, 3, 32, 32)
    err = library_case(make, (x, torch.tensor([4, 0])), (x, torch.tensor([5, 0])), "LG101", "", fullgraph=True)
    assert f"torch.compile'd code at {__file__}:" in str(err)


def test_compiled_timm_classifier_with_label_smoothing_and_labels_beyond_num_classes():
    import timm

    def make():
        model = timm.create_model("resnet10t", num_classes=4, pretrained=False)
        criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
        return lambda x, y: criterion(model(x), y)

    x = torch.randn(2, 3, 32, 32)
    err = library_case(make, (x, torch.tensor([3, 0])), (x, torch.tensor([4, 0])), "LG101", "", fullgraph=True, dynamic=True)
    assert err.call_site.user[1] == line_of(test_compiled_timm_classifier_with_label_smoothing_and_labels_beyond_num_classes, "criterion(model(x), y)")


def test_a_check_in_a_frame_dynamo_began_inside_a_library_names_the_live_caller():
    """After a graph break inside a library, dynamo's next frame begins there and traces no
    frame of the user's: the user's line is then the live caller of that frame."""
    import inspect

    from labelguard._compiled import Traced

    def library_frame():  # stands for the library function the compiled frame runs in
        return Traced([["transformers", __file__, 1, "GPT2LMHeadModel.forward", ""]]).with_callers()

    line = inspect.currentframe().f_lineno + 1
    traced = library_frame()
    assert traced.user()[:2] == (__file__, line)
    assert Traced([["", __file__, 7, "f", "x"]]).with_callers().frames == [("", __file__, 7, "f", "x")]


def bce_pos_weight(x, t, pw):
    return F.binary_cross_entropy_with_logits(x, t, pos_weight=pw)


class WeightedLoss(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.loss = nn.CrossEntropyLoss(weight=weight)

    def forward(self, x, t):
        return self.loss(x, t)


# name: (fn, bad arguments, rule, the text of the bad call's line, PyTorch's own message): shapes
# PyTorch refuses
SHAPE_CASES = {
    "pos_weight_length": (bce_pos_weight, (torch.randn(4, 3), torch.rand(4, 3), torch.ones(5)), "LG303", "F.binary_cross_entropy_with_logits", "broadcast"),
    "class_weight_length": (WeightedLoss(torch.ones(4)), (torch.randn(4, 3), torch.tensor([0, 1, 2, 1])), "LG301", "self.loss(x, t)", "weight tensor should be defined"),
    "one_hot_target": (ce, (torch.randn(4, 3), F.one_hot(torch.tensor([0, 1, 2, 1]), 3)), "LG202", "F.cross_entropy", "floating point type"),
}


def masked_put(x, mask, v):
    y = x * 2
    y[mask] = v  # v's rows: the mask's count of True values, which zeros would misjudge
    return y.sum()


def test_the_shape_probe_leaves_calls_with_a_mask_to_run_time():
    mask = torch.tensor([True, False, True, True, False])
    args = (torch.randn(5, 3), mask, torch.randn(3, 3))
    plain, plain_seen = compiled_run(masked_put, [args], False)
    out, seen = compiled_run(masked_put, [args], True)
    assert torch.equal(out[0], plain[0]) and seen == plain_seen


@pytest.mark.parametrize("dynamic", [None, True])
@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_a_call_whose_shapes_pytorch_refuses_raises_labelguards_error_at_its_line(name, dynamic):
    """Dynamo's own trace of such a call fails (TorchRuntimeError, no kernel): the check, run at
    trace time on zero tensors of the call's shapes, sends the call to eager code at a graph
    break, where it raises the eager error. Under fullgraph no break is allowed: dynamo's error
    stands, as without labelguard."""
    fn, bad, code, text, pytorch_says = SHAPE_CASES[name]
    (err,), _ = compiled_run(fn, [bad], True, backend="inductor", dynamic=dynamic)
    assert isinstance(err, TargetError) and err.code == code, repr(err)
    source = fn.forward if isinstance(fn, nn.Module) else fn
    # The call runs eagerly at the break (dynamo starts no frame at the wrapper): the refusal
    # names the user's line and ends there.
    assert err.call_site.user == (__file__, line_of(source, text)), str(err)
    last = traceback.extract_tb(err.__traceback__)[-1]
    assert (last.filename, last.lineno) == (__file__, line_of(source, text)), traceback.format_tb(err.__traceback__)
    (plain,), _ = compiled_run(fn, [bad], False, fullgraph=True)
    (full,), _ = compiled_run(fn, [bad], True, fullgraph=True)
    for err in (plain, full):
        assert isinstance(err, dynamo.exc.TorchDynamoException) and pytorch_says in str(err), repr(err)
