"""enable() under inductor changes no number it guards (issue 41): loss and every gradient of
warm compiled training steps are bit-identical (torch.equal) to the same compiled steps without
labelguard, and a bad batch is still refused before inductor's own bounds check. Inductor sees
the graph without the check when AOTAutograd partitions it (`labelguard/_placement.py`): the
check in dynamo's graph made the partitioner save other intermediates for the backward (an LM
loss under dynamic=True differed by 7.5e-9)."""

import re
import warnings

import pytest
import torch
import torch._dynamo as dynamo
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.utils import counters

import labelguard
from labelguard import TargetError, TargetWarning
from test_compiled_frames import SegNet

pytestmark = pytest.mark.slow


class ShiftedLM(nn.Module):
    """A causal LM's loss: logits and labels shifted by one (`h[:, :-1]`, `labels[:, 1:]`)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.head = nn.Linear(16, 50)

    def forward(self, ids, labels):
        h = self.head(torch.tanh(self.emb(ids)))
        return F.cross_entropy(h[:, :-1].reshape(-1, 50), labels[:, 1:].reshape(-1))


class FunctionalEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(500, 16))
        self.head = nn.Linear(16, 10)

    def forward(self, ids, labels):
        return F.cross_entropy(self.head(F.embedding(ids, self.weight).mean(1)), labels)


class IndexPutOneHot(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 20))

    def forward(self, x, labels):
        logits = self.net(x)
        target = torch.zeros_like(logits)
        target.index_put_((torch.arange(labels.shape[0]), labels), torch.ones(()))
        return F.binary_cross_entropy_with_logits(logits, target)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 30))

    def forward(self, x, labels):
        return F.cross_entropy(self.net(x), labels)


def lm_batch(g, i):
    ids = torch.randint(0, 50, (3, 6 + i), generator=g)  # a new length each step (dynamic=True)
    return ids, ids


def seg_batch(g, i):
    mask = torch.randint(0, 5, (2, 12, 12), generator=g)
    mask[:, :2] = 255  # void border
    return torch.randn(2, 3, 12, 12, generator=g), mask


#: name -> (model, batch(generator, step), compile options, (argument, position, bad value), rule
#: of its refusal; None: identity only). The one-hot's `index_put_` takes a tuple of index
#: tensors, which the graph carries to the check since issue 41's sweep (as eager). Its bad batch,
#: 16 random labels of 20 classes with a 20 and no 0 by chance, is a class count one short or a
#: stray label (LG416), not labels numbered from 1 (LG104 needs the missing 0 to be evidence).
SCENARIOS = {
    "lm-loss-dynamic": (ShiftedLM, lm_batch, {"dynamic": True}, (1, 4, 99), "LG101"),
    "segmentation": (SegNet, seg_batch, {}, (1, 30, 5), "LG101"),
    "functional-embedding": (FunctionalEmbedding, lambda g, i: (torch.randint(0, 500, (8, 5), generator=g), torch.randint(0, 10, (8,), generator=g)), {}, (0, 3, 500), "LG401"),
    "index-put-one-hot": (IndexPutOneHot, lambda g, i: (torch.randn(16, 32, generator=g), torch.randint(0, 20, (16,), generator=g)), {}, (1, 3, 20), "LG416"),
    "one-hot-smoothed": (lambda: OneHotScaled(0.9), lambda g, i: (torch.randn(16, 32, generator=g), torch.randint(0, 20, (16,), generator=g)), {}, (1, 3, 20), "LG416"),
    "max-autotune-classifier": (MLP, lambda g, i: (torch.randn(16, 64, generator=g), torch.randint(0, 30, (16,), generator=g)),
                                {"mode": "max-autotune-no-cudagraphs"}, (1, 3, 99), "LG101"),
}


def steps(name, enable):
    """Three compiled training steps (loss and gradients of each), then, with labelguard, the
    error of a bad batch."""
    model_of, batch, options, (arg, at, value), _ = SCENARIOS[name]
    torch.manual_seed(0)
    model = model_of()
    g = torch.Generator().manual_seed(1)
    batches = [batch(g, i) for i in range(3)]
    dynamo.reset()
    counters.clear()
    if enable:
        labelguard.enable()
    try:
        compiled = torch.compile(model, **options)
        out = []
        for b in batches:
            model.zero_grad(set_to_none=True)
            loss = compiled(*b)
            loss.backward()
            out.append([loss.detach()] + [p.grad.clone() for p in model.parameters()])
        graphs = counters["stats"]["unique_graphs"]
        refused = None
        if enable and SCENARIOS[name][4] is not None:
            bad = [t.clone() for t in batches[0]]
            bad[arg].view(-1)[at] = value
            with pytest.raises(TargetError) as info:
                compiled(*bad)
            refused = info.value
    finally:
        labelguard.disable()
    return out, graphs, refused


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_valid_compiled_step_is_bit_identical_and_a_bad_one_refused(name):
    plain, plain_graphs, _ = steps(name, False)
    checked, graphs, refused = steps(name, True)
    assert graphs == plain_graphs
    for a, b in zip(plain, checked):
        assert len(a) == len(b) and all(torch.equal(p, q) for p, q in zip(a, b)), [float((p - q).abs().max()) for p, q in zip(a, b)]
    rule = SCENARIOS[name][4]
    if rule is not None:
        assert refused.code == rule, repr(refused)


def test_enable_adds_its_passes_beside_the_users_own_and_disable_restores_them():
    from torch._inductor import config

    def mine(graph):
        pass

    config.joint_custom_pre_pass, config.post_grad_custom_pre_pass = mine, None
    try:
        labelguard.enable()
        joint, post_grad = config.joint_custom_pre_pass, config.post_grad_custom_pre_pass
        labelguard.disable()
        assert len(joint) == 2 and joint[1] is mine and len(post_grad) == 1
        assert config.joint_custom_pre_pass is mine and config.post_grad_custom_pre_pass is None
    finally:
        config.joint_custom_pre_pass = config.post_grad_custom_pre_pass = None


def _kernels(code):
    """The C++ kernels of inductor's output code: (argument types, source), by name order."""

    found = re.findall(r"= async_compile\.cpp_pybinding\((\[.*?\]), r'''(.*?)'''", "\n".join(code), re.S)
    assert found, "no C++ kernel in inductor's output code"
    return found


def _forward_call(code):
    """The `call` of the forward graph's output code (the one that calls the check op)."""
    forward = next(c for c in code if "check_through" in c)
    return forward[forward.index("def call("):]


def _without_and_with(model_of, step, **options):
    """`step(model, compiled, enabled)` on a fresh `model_of()` compiled by inductor (caches off,
    and these `torch._inductor.config` options), without and with labelguard (keys False, True)."""
    from torch._inductor import config

    out = {}
    for enable in (False, True):
        torch.manual_seed(0)
        model = model_of()
        dynamo.reset()
        if enable:
            labelguard.enable()
        try:
            with config.patch(force_disable_caches=True, **options):
                out[enable] = step(model, torch.compile(model), enable)
        finally:
            labelguard.disable()
    return out


def _codes(model_of, batch, after=None):
    """Inductor's output code of one training step of `model_of()` on `batch`, without and with
    labelguard (keys False, True); `after(compiled)` runs next, while labelguard is on."""
    from torch._inductor.utils import run_and_get_code

    def step(model, compiled, enabled):
        _, code = run_and_get_code(lambda: compiled(*batch).backward())
        if enabled and after is not None:
            after(compiled)
        return code

    return _without_and_with(model_of, step)


def test_the_kernels_that_read_a_checked_graph_input_are_those_without_labelguard():
    """Ordering without arithmetic: the ids and labels a compiled step takes are arguments the
    check op declares it writes (it never does), so inductor runs their kernels after it, and
    generates each kernel as it does without labelguard (a multiply by the check's 0-d one was
    inlined into the embedding's gather loop, a 64-bit multiply per read); the kernels read the
    step's own tensors (no copy), and the check is in the code, before them."""
    g = torch.Generator().manual_seed(1)
    code = _codes(FunctionalEmbedding, (torch.randint(0, 500, (8, 5), generator=g), torch.randint(0, 10, (8,), generator=g)))
    assert _kernels(code[True]) == _kernels(code[False])
    call = _forward_call(code[True])
    assert call.index("torch.ops.labelguard.check_through.default(") < call.index("cpp_fused_embedding")
    assert re.search(r"cpp_fused_embedding\w*\(primals_\d+, primals_\d+,", call), call  # (the step's ids and weight themselves)


class OneHotOf(nn.Module):
    """A one-hot target whose ones are `value` (a 0-d tensor the step takes), then BCE with logits."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 20))

    def forward(self, x, labels, value):
        logits = self.net(x)
        target = torch.zeros_like(logits)
        target.index_put_((torch.arange(labels.shape[0]), labels), value)
        return F.binary_cross_entropy_with_logits(logits, target)


def test_a_check_that_guards_no_kernel_runs_after_the_loss_that_inductor_fuses_as_without_labelguard():
    """BCE with logits raises for no target (the op table's `raises_on_values`), so its check
    holds back no kernel: it runs after the loss, which inductor fuses as it does without
    labelguard (zeros, the one-hot's scatter, the loss and its mean in one kernel; the check
    between them split it in three). The index check still runs before that kernel; the
    `arange` beside the labels, proven within the rows it indexes, is not read by it
    (`_placement._index_zeros`), so it is no kernel of its own. A target of 2.0 is still reported (LG503, a warning: PyTorch computes a loss,
    which is garbage)."""
    g = torch.Generator().manual_seed(1)
    batch = (torch.randn(16, 32, generator=g), torch.randint(0, 20, (16,), generator=g), torch.ones(()))
    warned = []

    def bad_target(compiled):
        with pytest.warns(TargetWarning, match=r"\[LG503\]") as caught:
            compiled(*batch[:2], torch.full((), 2.0))
        warned.extend(caught)

    code = _codes(OneHotOf, batch, bad_target)
    # (the arange, proven in range, is not read: no kernel of its own; the loss kernel holds the
    # same loops, the mean's before the gradient's)
    assert len(_kernels(code[True])) == len(_kernels(code[False]))
    call = _forward_call(code[True])
    checks = [m.start() for m in re.finditer(r"check_through\.default\(", call)]
    loss = call.index("binary_cross_entropy_with_logits_index_put")
    assert len(checks) == 2 and checks[0] < loss < checks[1], call
    assert "in torch.compile'd code at" in str(warned[0].message)


class OneHotScaled(OneHotOf):
    """A one-hot of constant ones, scaled by a constant (`scale`): 0.9 proves the target within
    [0, 1], 2.0 does not."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x, labels):
        logits = self.net(x)
        target = torch.zeros_like(logits)
        target.index_put_((torch.arange(labels.shape[0]), labels), torch.ones(()))
        return F.binary_cross_entropy_with_logits(logits, target * self.scale)


def test_a_target_the_graph_proves_in_range_is_checked_once_when_the_step_compiles():
    """A one-hot target of constant ones lies in [0, 1] whatever the labels (`_ranges.proven`),
    and BCE's verdict is the same for every target within [0, 1] (the table's `within`): the
    check is decided when the step compiles and the forward graph calls the op once, for the
    labels, which are still checked on every step. Scaled by 2 the target proves nothing: its
    check runs after the loss and reports LG503, as before. (Valid steps stay bit-identical:
    SCENARIOS' "one-hot-smoothed".)"""
    g = torch.Generator().manual_seed(3)
    batch = (torch.randn(16, 32, generator=g), torch.randint(0, 20, (16,), generator=g))
    for scale, checks in ((0.9, 1), (2.0, 2)):
        caught = []

        def bad_batches(compiled):
            with pytest.raises(TargetError):
                compiled(batch[0], torch.full((16,), 20))
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                compiled(*batch)
            caught.extend(str(w.message) for w in seen if issubclass(w.category, TargetWarning))

        code = _codes(lambda: OneHotScaled(scale), batch, bad_batches)
        assert len(re.findall(r"check_through\.default\(", _forward_call(code[True]))) == checks
        assert [("LG503" in m) for m in caught] == ([] if scale < 1 else [True])


def _labels_then_bumped(logits, labels):
    loss = F.cross_entropy(logits, labels)
    labels.add_(1)  # an input the step mutates in place, after the guarded call read it
    return loss


def _target_then_halved(logits, target):
    loss = F.binary_cross_entropy_with_logits(logits, target)
    target.mul_(0.5)
    return loss


@pytest.mark.parametrize("fn,valid,bad", [
    (_labels_then_bumped, torch.tensor([0, 1, 2, 1]), torch.tensor([0, 1, 3, 1])),
    (_target_then_halved, torch.full((4, 3), 0.5), torch.full((4, 3), 2.0)),
])
def test_an_input_the_step_mutates_keeps_its_mutation_and_is_checked_as_the_op_read_it(fn, valid, bad):
    """Under inductor the node that writes a mutated input back writes the caller's tensor (when
    the check op returned a copy of the input, the mutation went to the copy and was lost). A
    check that runs after the kernels runs before that write, so it judges the values the op
    read: a target of 2.0 halved after the loss is still reported."""
    x = torch.randn(4, 3)
    seen = {}
    for enable in (False, True):
        dynamo.reset()
        if enable:
            labelguard.enable()
        try:
            compiled = torch.compile(fn)
            compiled(x, valid.clone())
            mutated = valid.clone()
            loss = compiled(x, mutated)
            seen[enable] = (loss, mutated)
            if enable:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        compiled(x, bad.clone())
                        said = [str(w.message) for w in caught if issubclass(w.category, TargetWarning)]
                    except TargetError as err:
                        said = [str(err)]
        finally:
            labelguard.disable()
    assert torch.equal(seen[True][0], seen[False][0]) and torch.equal(seen[True][1], seen[False][1]), (seen, valid)
    assert not torch.equal(seen[True][1], valid)  # (the step did mutate it)
    assert len(said) == 1 and ("[LG101]" in said[0] or "[LG503]" in said[0]), said


def test_under_the_cpp_wrapper_a_valid_step_is_identical_and_a_bad_one_refused():
    """`torch._inductor.config.cpp_wrapper`: inductor writes the step's code in C++, and each
    string argument of an op into a C++ literal without escaping it (torch 2.15), so the op's
    spec is written in characters such a literal keeps (`_compiled.wired`): its JSON's quotes
    made the step's compile fail. The refusal crosses C++ and arrives as a RuntimeError that
    carries labelguard's message."""
    g = torch.Generator().manual_seed(1)
    ids, labels = torch.randint(0, 500, (8, 5), generator=g), torch.randint(0, 10, (8,), generator=g)

    def step(model, compiled, enabled):
        loss = compiled(ids, labels)
        loss.backward()
        if enabled:
            bad = labels.clone()
            bad[3] = 10
            with pytest.raises(RuntimeError, match=r"(?s)\[LG101\].*in torch.compile'd code at"):
                compiled(ids, bad)
        return [loss.detach()] + [p.grad for p in model.parameters()]

    out = _without_and_with(FunctionalEmbedding, step, cpp_wrapper=True)
    assert all(torch.equal(a, b) for a, b in zip(out[False], out[True]))


class OneHotShifted(nn.Module):
    """A one-hot whose rows are `arange(n) + shift`: within the n rows for shift 0, past the
    last row for shift 1."""

    def __init__(self, shift):
        super().__init__()
        self.shift = shift
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 20))

    def forward(self, x, labels):
        logits = self.net(x)
        target = torch.zeros_like(logits)
        target.index_put_((torch.arange(labels.shape[0]) + self.shift, labels), torch.ones(()))
        return F.binary_cross_entropy_with_logits(logits, target)


def test_an_index_the_graph_cannot_prove_in_range_is_still_read_and_refused():
    """Only an index proven within the dim it indexes is read as zeros: `arange(n) + 1` reaches
    past the n rows of the one-hot, is read, and the step is refused before inductor's own
    bounds check (which raises on the CPU and asserts on a GPU), as the same call is in eager
    code: the same rule, the same first bad value."""
    g = torch.Generator().manual_seed(1)
    x, labels = torch.randn(16, 32, generator=g), torch.randint(0, 20, (16,), generator=g)
    torch.manual_seed(0)
    model = OneHotShifted(1)
    dynamo.reset()
    labelguard.enable()
    try:
        with pytest.raises(TargetError) as eager:
            model(x, labels)
        compiled = torch.compile(model)
        with pytest.raises(TargetError) as info:
            compiled(x, labels)
    finally:
        labelguard.disable()
    assert info.value.code == eager.value.code and "index[15] = 16" in str(info.value), str(info.value)
