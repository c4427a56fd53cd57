"""`check(op, **kwargs)` and the typed shortcuts with PyTorch's signatures."""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

from . import _native
from ._report import Report, report_or_raise
from ._tensors import describe, describe_abstract, is_abstract, is_tensor_like, on_host, plain_tensor_types, strided

# Tensors PyTorch itself copies to the host for these ops (ctc_loss's lengths), and small ones
# whose every value matters (embedding_bag's offsets).
_HOST_ANYWAY = {"input_lengths", "target_lengths", "offsets"}


def check(op: str, **kwargs: Any) -> Report:
    """What PyTorch does with `op(**kwargs)`: a Report with `.verdict` and `.findings`.

    Arguments go by PyTorch's names: tensors (numpy arrays, torch tensors on any device) and
    scalars, e.g. ``check("cross_entropy", input=logits, target=mask, ignore_index=255)``.
    Tensors on the ``meta`` device or from FakeTensorMode have no values: their shapes and
    dtypes are checked, nothing is copied.
    It never raises for a bad call; use the ``check_*`` functions (or ``report.raises``) for that.
    """
    return check_call(op, kwargs)


def check_call(op: str, kwargs: Dict[str, Any], unread: frozenset = frozenset()) -> Report:
    """`check` with the arguments as one dict (what `enable()`'s wrappers call). The tensors
    named in `unread` are checked like meta tensors: shape and dtype, values never read."""
    fast = all_host_torch(op, kwargs, unread)
    if fast is not None:
        return fast
    tensors: Dict[str, Any] = {}
    args: Dict[str, Any] = {}
    for k, v in kwargs.items():
        if is_tensor_like(v):
            tensors[k] = v
        else:
            args[k] = v
    abstract = frozenset(k for k, v in tensors.items() if k in unread or is_abstract(v))
    if all(k in abstract or on_host(t) for k, t in tensors.items()):
        report = _host_check(op, tensors, args, abstract)
    else:
        report = _device_check(op, tensors, args, abstract=abstract)
    return _known_only(report, abstract) if abstract else report


def all_host_torch(op: str, kwargs: Dict[str, Any], unread: frozenset) -> Optional[Report]:
    """The hot path of `enable()`: every tensor a plain CPU torch tensor (or one whose values
    are not read), described and checked in one native call; None when another path must
    decide (CUDA tensors, subclasses such as fake tensors, numpy arrays, other objects)."""
    plain = plain_tensor_types()
    if not plain:
        return None
    got = _native.check_plain(op, kwargs, unread, plain, strided())
    if got is None:
        return None
    name, text, skipped = got
    report = _report(name, text)
    return _known_only(report, frozenset(skipped)) if skipped and report.findings else report


_OK: Dict[str, Report] = {}
_VERDICTS = ("ok", "silent", "device_assert", "error")


def _host_check(op: str, tensors: Dict[str, Any], args: Dict[str, Any], abstract: frozenset = frozenset()) -> Report:
    described = [describe_abstract(k, v) if k in abstract else describe(k, v) for k, v in tensors.items()]
    return _native_check(op, described, list(args.items()))


def _native_check(op: str, described: List[Any], args: List[Any]) -> Report:
    return _report(*_native.check(op, described, args))


def _report(name: str, text: Optional[str]) -> Report:
    """The Report of a native check: parsed from JSON, or the shared valid one."""
    if text is not None:
        return Report.from_json(text)
    report = _OK.get(name)
    if report is None:
        report = _OK[name] = Report(op=name, verdict="ok", findings=())
    return report


def _known_only(report: Report, abstract: frozenset) -> Report:
    """Drops the findings about values of tensors that have none (they were read as zeros)."""
    if not report.findings:
        return report
    kept = tuple(f for f in report.findings if not any(l.tensor in abstract for l in f.locations))
    if len(kept) == len(report.findings):
        return report
    verdict = max((f.verdict for f in kept), key=_VERDICTS.index, default="ok")
    return Report(op=report.op, verdict=verdict, findings=kept)


def _distinct(t: Any) -> Any:
    """`t` without the repeats of its broadcast (stride-0) dimensions: an expanded mask (a VLM's
    `(input_ids == id).unsqueeze(-1).expand_as(inputs_embeds)`) travels as [B, L, 1], not as
    [B, L, hidden]; the host copy is expanded back."""
    if t.dim() and any(s == 0 and n > 1 for n, s in zip(t.shape, t.stride())):
        return t.as_strided([1 if s == 0 else n for n, s in zip(t.shape, t.stride())], t.stride())
    return t


def _fetch(tensors: List[Any]) -> List[Any]:
    """Copies small device tensors to the host with one synchronisation."""
    torch = sys.modules["torch"]
    out = [_distinct(t).to("cpu", non_blocking=True).expand(t.shape) for t in tensors]
    devices = {t.device for t in tensors if t.device.type == "cuda"}
    for d in devices:
        torch.cuda.synchronize(d)
    return out


def _reduce(name: str, t: Any, ignore: Optional[int]):
    """(candidates-maker, stats) for a large device tensor: min and max (NaN and the ignore
    value excluded) and whether NaN / the ignore value occur, as one small device tensor."""
    torch = sys.modules["torch"]
    if t.dtype == torch.bool:
        return torch.stack([t.all(), t.any()]).to(torch.uint8)
    if t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        t = t.to(torch.int64)  # min/max kernels are missing for these on some devices
    if t.dtype.is_floating_point:
        nan = t.isnan()
        return torch.stack([
            t.masked_fill(nan, float("inf")).amin().to(torch.float64),
            t.masked_fill(nan, float("-inf")).amax().to(torch.float64),
            nan.any().to(torch.float64),
        ])
    info = torch.iinfo(t.dtype)
    if ignore is None or not (info.min <= ignore <= info.max):
        return torch.stack([t.amin().to(torch.int64), t.amax().to(torch.int64), torch.zeros((), dtype=torch.int64, device=t.device)])
    is_ign = t == ignore
    return torch.stack([
        t.masked_fill(is_ign, info.max).amin().to(torch.int64),
        t.masked_fill(is_ign, info.min).amax().to(torch.int64),
        is_ign.any().to(torch.int64),
    ])


def _candidates(t: Any, stats: Any, ignore: Optional[int]) -> List[Any]:
    """Values that occur in `t` and bound all others: min and max of the labelled values, NaN;
    the ignore value only when every element is ignored (elsewhere it is valid by definition)."""
    torch = sys.modules["torch"]
    s = stats.tolist()
    if t.dtype == torch.bool:
        values = sorted({bool(s[0]), bool(s[1])})
    elif t.dtype.is_floating_point:
        values = [v for v in (s[0], s[1]) if s[0] <= s[1]] + ([float("nan")] if s[2] else [])
    else:
        values = [int(v) for v in (s[0], s[1])] if s[0] <= s[1] else ([ignore] if s[2] else [])
    return list(dict.fromkeys(values)) or [0]


def _device_check(op: str, tensors: Dict[str, Any], args: Dict[str, Any], _all_on_device: bool = False, abstract: frozenset = frozenset()) -> Report:
    """The CUDA path. Every device-assert constraint is an interval (class ids, indices,
    probabilities), so a call violates it exactly when its extreme values do: the call is
    checked on broadcast views of each tensor's min, max, NaN and ignore value, computed on
    the device with one synchronisation. Only when a value check fails are the tensors
    copied to the host, to report the exact findings and coordinates."""
    torch = sys.modules["torch"]
    # (`_all_on_device` lets the tests run this path with CPU tensors.)
    host = {k: v for k, v in tensors.items() if k in abstract or (on_host(v) and not _all_on_device)}
    device = {k: v for k, v in tensors.items() if k not in host}
    copied = [k for k, v in device.items() if k in _HOST_ANYWAY or v.numel() == 0]
    reduced = [k for k in device if k not in copied]
    ignore = args.get("ignore_index", -100) if op in ("cross_entropy", "nll_loss", "CrossEntropyLoss", "NLLLoss") else None
    ignores = {k: (ignore if k == "target" else None) for k in reduced}
    fetched = _fetch([device[k] for k in copied] + [_reduce(k, device[k], ignores[k]) for k in reduced])
    host.update(zip(copied, fetched[: len(copied)]))
    candidates = {k: _candidates(device[k], s, ignores[k]) for k, s in zip(reduced, fetched[len(copied):])}

    def surrogate(k: str, value: Any) -> Any:
        t = device[k]
        return torch.tensor(value, dtype=t.dtype).expand(t.shape)

    base = {k: surrogate(k, c[0]) for k, c in candidates.items()}
    runs = [base] + [{**base, k: surrogate(k, v)} for k, c in candidates.items() for v in c[1:]]
    reports = [_host_check(op, {**host, **r}, args, abstract) for r in runs]
    if all(r == reports[0] for r in reports):
        return reports[0]
    # A value check failed for some extreme value: the exact findings need the real values.
    exact = dict(host)
    exact.update(zip(reduced, _fetch([device[k] for k in reduced])))
    return _host_check(op, exact, args, abstract)


def _drop_none(**kwargs: Any) -> Dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


def check_cross_entropy(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean", label_smoothing: float = 0.0) -> Report:
    """Raises TargetError where ``F.cross_entropy`` would raise or assert; warns for garbage results."""
    return report_or_raise(check("cross_entropy", **_drop_none(input=input, target=target, weight=weight), ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing))


def check_nll_loss(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean") -> Report:
    return report_or_raise(check("nll_loss", **_drop_none(input=input, target=target, weight=weight), ignore_index=ignore_index, reduction=reduction))


def check_binary_cross_entropy(input, target, weight=None, reduction: str = "mean") -> Report:
    return report_or_raise(check("binary_cross_entropy", **_drop_none(input=input, target=target, weight=weight), reduction=reduction))


def check_binary_cross_entropy_with_logits(input, target, weight=None, reduction: str = "mean", pos_weight=None) -> Report:
    return report_or_raise(check("binary_cross_entropy_with_logits", **_drop_none(input=input, target=target, weight=weight, pos_weight=pos_weight), reduction=reduction))


def check_embedding(input, num_embeddings: int, padding_idx: Optional[int] = None) -> Report:
    return report_or_raise(check("embedding", input=input, num_embeddings=int(num_embeddings), padding_idx=padding_idx))


def check_gather(input, dim: int, index) -> Report:
    return report_or_raise(check("gather", input=input, dim=dim, index=index))


def check_scatter(input, dim: int, index, src=None, value: Optional[float] = None) -> Report:
    return report_or_raise(check("scatter", **_drop_none(input=input, index=index, src=src), dim=dim, value=value))


def check_index_select(input, dim: int, index) -> Report:
    return report_or_raise(check("index_select", input=input, dim=dim, index=index))


def check_one_hot(tensor, num_classes: int = -1) -> Report:
    return report_or_raise(check("one_hot", tensor=tensor, num_classes=num_classes))


def check_multinomial(input, num_samples: int, replacement: bool = False) -> Report:
    return report_or_raise(check("multinomial", input=input, num_samples=num_samples, replacement=replacement))


def check_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Report:
    lengths = {}
    for name, value in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        lengths[name] = value if is_tensor_like(value) else [int(v) for v in value]
    return report_or_raise(check("ctc_loss", log_probs=log_probs, targets=targets, blank=blank, reduction=reduction, zero_infinity=zero_infinity, **lengths))
