"""Never silent under torch.compile: a guarded call whose arguments the graph cannot carry to the
check (a complex scatter value: the op takes tensors, lists of tensors, ints and floats) is said to
run unchecked, once per call site, while a call the graph does check says nothing of the kind:
gather, and index_put_ with a tuple of index tensors, which the graph carries (issue 41) and
refuses as eager code does."""

import warnings

import pytest

torch = pytest.importorskip("torch")
import labelguard  # noqa: E402
from labelguard import TargetError, TargetWarning  # noqa: E402


def _complex_scatter(z, labels):
    return z.scatter(1, labels.view(-1, 1), 1j).abs().sum()


def _one_hot(x, labels):
    return torch.zeros_like(x).index_put_((torch.arange(labels.shape[0]), labels), torch.ones(())).sum()


def _gathered(x, labels):
    return x.gather(1, labels.view(-1, 1)).sum()


def _unchecked_said(fn, *calls):
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="aot_eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in calls:
            compiled(*args)
    return [str(w.message) for w in caught if issubclass(w.category, TargetWarning) and "does not check" in str(w.message)]


@pytest.fixture(autouse=True)
def _guards():
    labelguard.enable()
    yield
    labelguard.disable()


def test_a_call_with_a_complex_value_is_said_to_run_unchecked_once():
    z = torch.zeros(3, 5, dtype=torch.complex64)
    said = _unchecked_said(_complex_scatter, (z, torch.tensor([0, 2, 4])), (z, torch.tensor([1, 2, 3])))
    assert len(said) == 1, said
    assert "torch.Tensor.scatter" in said[0] and "_complex_scatter" in said[0] and "a complex number" in said[0]


@pytest.mark.parametrize("fn", [_gathered, _one_hot], ids=["gather", "index_put_-tuple"])
def test_a_call_the_graph_checks_says_nothing_of_the_kind(fn):
    assert _unchecked_said(fn, (torch.randn(3, 50), torch.tensor([0, 2, 4]))) == []


def test_an_index_put_with_a_tuple_of_indices_is_refused_compiled_as_eager():
    bad = (torch.randn(3, 50), torch.tensor([0, 2, 50]))
    with pytest.raises(TargetError) as eager:
        _one_hot(*bad)
    torch._dynamo.reset()
    with pytest.raises(TargetError) as compiled:
        torch.compile(_one_hot, backend="aot_eager")(*bad)
    assert [f.code for f in compiled.value.report.findings] == [f.code for f in eager.value.report.findings] == ["LG416"]
