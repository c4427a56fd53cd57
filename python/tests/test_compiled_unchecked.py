"""Never silent under torch.compile: a guarded call whose arguments the graph cannot carry to the
check (index_put_ with a tuple of index tensors) is said to run unchecked, once per call site,
while a call the graph does check (gather) says nothing of the kind. Eager calls stay checked."""

import warnings

import pytest

torch = pytest.importorskip("torch")
import labelguard  # noqa: E402
from labelguard import TargetError, TargetWarning  # noqa: E402


def _one_hot(x, labels):
    return torch.zeros_like(x).index_put_((torch.arange(labels.shape[0]), labels), torch.ones(())).sum()


def _gathered(x, labels):
    return x.gather(1, labels.view(-1, 1)).sum()


def _unchecked_said(fn, *calls):
    torch._dynamo.reset()
    compiled = torch.compile(fn)
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


def test_an_index_put_with_a_tuple_of_indices_is_said_to_run_unchecked_once():
    x = torch.randn(3, 50)
    said = _unchecked_said(_one_hot, (x, torch.tensor([0, 2, 4])), (x, torch.tensor([1, 2, 3])))
    assert len(said) == 1, said
    assert "index_put_" in said[0] and "_one_hot" in said[0]


def test_a_call_the_graph_checks_says_nothing_of_the_kind():
    assert _unchecked_said(_gathered, (torch.randn(3, 50), torch.tensor([0, 2, 4]))) == []


def test_the_same_call_eager_is_refused():
    with pytest.raises(TargetError):
        _one_hot(torch.randn(3, 50), torch.tensor([0, 2, 50]))
