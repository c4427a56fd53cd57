"""enable() under torch.compile, issue 41: a refusal's traceback ends at the user's line, in the
graph, after a graph break and in a module whose forward computes the loss (labelguard's,
AOTAutograd's, inductor's and dynamo's inner frames cut); the error stays a TargetError across
pickling; and a compiled function's eager parts (after a graph break, a frame dynamo gave up on)
get no graph and no recompilation that they would not get without labelguard (dynamo compiled the
wrappers as frames of their own: `x[s]` guarded on `key == 0`)."""

import contextlib
import pickle

import pytest
import torch
import torch._dynamo as dynamo
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.utils import counters

import labelguard
from labelguard import TargetError
from test_compiled import assert_ends_at, line_of


def refused(compiled, valid, bad):
    """The TargetError of `compiled(*bad)` after a warm valid call."""
    compiled(*valid)
    with pytest.raises(TargetError) as info:
        compiled(*bad)
    return info.value


def after_a_graph_break(x, t):
    y = x * 2
    torch._dynamo.graph_break()
    return F.cross_entropy(y, t)  # the call runs in the resumed frame's graph


def in_the_eager_part(x, t):
    y = x * 2
    print(end="")  # a graph break: the next statement runs between graphs
    return F.nll_loss(y.log_softmax(1), t, reduction="none").detach().numpy().sum()


class Classifier(nn.Module):
    """A module whose forward computes the loss (a Lightning or HF-style step)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))

    def forward(self, x, t):
        logits = self.body(x)
        return F.cross_entropy(logits, t, label_smoothing=0.1)


@pytest.mark.parametrize("fn", [after_a_graph_break, in_the_eager_part], ids=lambda f: f.__name__)
def test_a_refusal_after_a_graph_break_ends_at_the_users_line(fn):
    dynamo.reset()
    labelguard.enable()
    compiled = torch.compile(fn, backend="aot_eager")
    err = refused(compiled, (torch.randn(4, 3), torch.tensor([0, 2, 1, 1])), (torch.randn(4, 3), torch.tensor([0, 3, 1, 1])))
    text = "F.cross_entropy(y, t)" if fn is after_a_graph_break else "F.nll_loss("
    # The resumed frame (`torch_dynamo_resume_in_after_a_graph_break_at_...`) is named as the user's function.
    assert_ends_at(err, fn.__name__, line_of(fn, text), __file__)
    assert err.code == "LG101" or err.code.startswith("LG4"), str(err)


@pytest.mark.parametrize("options", [{}, {"fullgraph": True, "dynamic": True}], ids=["default", "fullgraph-dynamic"])
def test_a_compiled_module_whose_forward_computes_the_loss_is_refused_at_its_line(options):
    torch.manual_seed(0)
    model = Classifier()
    dynamo.reset()
    labelguard.enable()
    compiled = torch.compile(model, backend="aot_eager", **options)
    err = refused(compiled, (torch.randn(4, 6), torch.tensor([0, 2, 1, 1])), (torch.randn(5, 6), torch.tensor([0, 2, 1, 1, -3])))
    assert err.code == "LG102", str(err)  # a negative label, not ignore_index
    assert_ends_at(err, "forward", line_of(Classifier.forward, "F.cross_entropy"), __file__)


def test_the_refusal_pickles_as_a_plain_target_error():
    """The error raised inside compiled code is dynamo's ShortenTraceback too (so that dynamo cuts
    its frames); it crosses a process boundary (DataLoader workers, Ray) as a TargetError."""
    dynamo.reset()
    labelguard.enable()
    err = refused(torch.compile(after_a_graph_break, backend="aot_eager"), (torch.randn(2, 3), torch.tensor([0, 2])), (torch.randn(2, 3), torch.tensor([0, 7])))
    assert isinstance(err, TargetError) and type(err).__name__ == "TargetError" and str(type(err)) == "<class 'labelguard.TargetError'>"
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is TargetError and back.code == err.code == "LG101" and str(back) == str(err)


def an_eager_part_with_int_keys(x, s, t):
    with torch.device("cpu"):  # dynamo gives up on this frame: it all runs eagerly
        return x[s].sum() + x[s, 1:].sum() + F.cross_entropy(x, t)


@contextlib.contextmanager
def fresh(enable):
    """A block with dynamo reset and its counters cleared, labelguard on for it when `enable`."""
    dynamo.reset()
    counters.clear()
    if enable:
        labelguard.enable()
    try:
        yield
    finally:
        labelguard.disable()


def counted(enable):
    """Graphs and graph breaks of `an_eager_part_with_int_keys` over varying int keys."""
    with fresh(enable):
        compiled = torch.compile(an_eager_part_with_int_keys, backend="eager")
        for s in (0, 1, 2, 3, 0):
            compiled(torch.randn(5, 3), s, torch.tensor([0, 1, 2, 0, 1]))
    return counters["stats"]["unique_graphs"], sum(counters["graph_break"].values()), sum(counters["recompiles"].values())


def test_a_compiled_functions_eager_part_gets_no_graph_for_the_wrappers():
    plain = counted(False)
    assert counted(True) == plain
    # and its calls are still checked there
    dynamo.reset()
    labelguard.enable()
    compiled = torch.compile(an_eager_part_with_int_keys, backend="eager")
    with pytest.raises(TargetError) as info:
        compiled(torch.randn(5, 3), 1, torch.tensor([0, 1, 2, 0, 3]))
    assert info.value.code == "LG101"
    assert_ends_at(info.value, "an_eager_part_with_int_keys", line_of(an_eager_part_with_int_keys, "F.cross_entropy(x, t)"), __file__)


class SegNet(nn.Module):
    """A segmentation step: conv, batch norm, per-pixel cross-entropy with a void label."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 5, 1))

    def forward(self, x, mask):
        return F.cross_entropy(self.body(x), mask, ignore_index=255)


def segmentation_steps(enable, batches):
    """Loss and gradients of each batch through a fresh inductor compile of the same SegNet."""
    torch.manual_seed(0)
    model = SegNet()
    with fresh(enable):
        compiled = torch.compile(model, backend="inductor")
        out = []
        for x, mask in batches:
            model.zero_grad()
            try:
                loss = compiled(x, mask)
            except TargetError as err:
                out.append(err)
                continue
            loss.backward()
            out.append([loss.detach()] + [p.grad.clone() for p in model.parameters()])
    return out, (counters["stats"]["unique_graphs"], sum(counters["graph_break"].values()))


@pytest.mark.slow
def test_a_compiled_segmentation_step_is_bit_identical_and_refuses_a_bad_mask_at_its_line():
    g = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(2):
        mask = torch.randint(0, 5, (2, 12, 12), generator=g)
        mask[:, :2] = 255  # void border
        batches.append((torch.randn(2, 3, 12, 12, generator=g), mask))
    plain, plain_seen = segmentation_steps(False, batches)
    bad = batches[0][1].clone()
    bad[1, 5, 7] = 5  # one class id past the 5 classes
    checked, seen = segmentation_steps(True, batches + [(batches[0][0], bad)])
    assert seen == plain_seen
    for a, b in zip(plain, checked[:2]):
        assert all(torch.equal(p, q) for p, q in zip(a, b))
    err = checked[2]
    assert isinstance(err, TargetError) and err.code == "LG101", repr(err)
    assert_ends_at(err, "forward", line_of(SegNet.forward, "F.cross_entropy"), __file__)
