"""Fix masks on the fly, with the tables `labelguard fix` applies to files.

    mask = labelguard.remap(mask, preset="cityscapes", fix="label_ids")     # numpy or torch
    transforms = v2.Compose([..., labelguard.Remap(preset="cityscapes", fix="label_ids")])

The tables come from the Rust extension (the same code as `labelguard fix` and the scan's
proposed repairs), so they are written once. Values that a table does not list stay as they
are; a target the mask's dtype cannot hold raises ValueError instead of wrapping around.
"""

from typing import Any, Dict, Optional, Sequence, Tuple

from . import _native

_COLOUR = ("colour_to_index", "color_to_index", "colour", "color", "palette")


def remap_table(
    fix: str = "label_ids",
    preset: Optional[str] = None,
    num_classes: Optional[int] = None,
    ignore_index: Optional[int] = None,
    mapping: Optional[Dict[int, int]] = None,
) -> Dict[int, int]:
    """The value table of a fix as ``{from: to}`` (only the values that change)."""
    if mapping is not None:
        return {int(a): int(b) for a, b in mapping.items() if int(a) != int(b)}
    _, pairs = _native.repair_table(fix, preset, num_classes, ignore_index)
    return dict(pairs)


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch") or hasattr(x, "__torch_function__")


def _range_of(dtype_name: str) -> Tuple[int, int]:
    import numpy as np

    info = np.iinfo(np.dtype(dtype_name))
    return int(info.min), int(info.max)


def _check_fits(table: Dict[int, int], dtype_name: str) -> None:
    lo, hi = _range_of(dtype_name)
    bad = sorted(t for t in table.values() if t < lo or t > hi)
    if bad:
        raise ValueError(
            f"the fix maps values to {bad[0]}, which a {dtype_name} mask cannot hold "
            f"({lo}..{hi}); convert the mask to int64 first (mask.astype('int64') / mask.long())"
        )


def _remap_values(mask: Any, table: Dict[int, int]) -> Any:
    keys = sorted(table)
    if _is_torch(mask):
        import torch

        if mask.dtype.is_floating_point or mask.dtype == torch.bool:
            raise TypeError(f"remap needs integer class ids, got {mask.dtype}")
        _check_fits(table, str(mask.dtype).replace("torch.", ""))
        if not keys:
            return mask.clone()
        k = torch.tensor(keys, dtype=torch.int64, device=mask.device)
        v = torch.tensor([table[x] for x in keys], dtype=torch.int64, device=mask.device)
        flat = mask.reshape(-1).to(torch.int64)
        idx = torch.searchsorted(k, flat).clamp(max=len(keys) - 1)
        hit = k[idx] == flat
        out = torch.where(hit, v[idx], flat).to(mask.dtype).reshape(mask.shape)
        return out.as_subclass(type(mask)) if type(mask) is not torch.Tensor else out
    import numpy as np

    arr = np.asarray(mask)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"remap needs integer class ids, got {arr.dtype}")
    _check_fits(table, arr.dtype.name)
    if not keys:
        return arr.copy()
    if arr.dtype.itemsize == 1 or arr.dtype == np.uint16:
        lo = 0 if arr.dtype.kind == "u" else -128
        lut = np.arange(lo, lo + (1 << (8 * arr.dtype.itemsize)), dtype=np.int64)
        for a, b in table.items():
            if lo <= a < lo + len(lut):
                lut[a - lo] = b
        return lut.astype(arr.dtype)[arr.astype(np.int64) - lo]
    k = np.asarray(keys, dtype=np.int64)
    v = np.asarray([table[x] for x in keys], dtype=np.int64)
    flat = arr.astype(np.int64, copy=False)
    idx = np.searchsorted(k, flat).clip(max=len(keys) - 1)
    return np.where(k[idx] == flat, v[idx], flat).astype(arr.dtype)


def _remap_colours(mask: Any, preset: str, ignore_index: Optional[int]) -> Any:
    import numpy as np

    torch_in = _is_torch(mask)
    arr = mask.cpu().numpy() if torch_in else np.asarray(mask)
    if arr.ndim != 3 or arr.shape[-1] not in (3, 4) or arr.dtype != np.uint8:
        raise ValueError(f"fix='colour_to_index' needs an [H, W, 3] uint8 colour mask, got {arr.dtype} {list(arr.shape)}")
    table = _native.colour_table(preset, ignore_index)
    keys = np.asarray([(r << 16) | (g << 8) | b for (r, g, b), _ in table], dtype=np.int64)
    ids = np.asarray([i for _, i in table], dtype=np.int64)
    order = np.argsort(keys)
    keys, ids = keys[order], ids[order]
    rgb = arr[..., :3].astype(np.int64)
    code = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    idx = np.searchsorted(keys, code).clip(max=len(keys) - 1)
    hit = keys[idx] == code
    if not hit.all():
        y, x = np.argwhere(~hit)[0]
        raise ValueError(
            f"{int((~hit).sum())} pixels have colours outside the {preset} palette; first: mask[{y}, {x}] = "
            f"{tuple(int(c) for c in arr[y, x, :3])} (exact colours only: re-export the mask without resizing or anti-aliasing)"
        )
    out = ids[idx]
    out = out.astype(np.uint8) if out.max(initial=0) <= 255 and out.min(initial=0) >= 0 else out
    if torch_in:
        import torch

        return torch.from_numpy(out).to(mask.device)
    return out


def remap(
    mask: Any,
    preset: Optional[str] = None,
    fix: str = "label_ids",
    num_classes: Optional[int] = None,
    ignore_index: Optional[int] = None,
    mapping: Optional[Dict[int, int]] = None,
) -> Any:
    """Returns a repaired copy of ``mask`` (numpy array or torch tensor, same dtype and device).

    ``fix``: ``label_ids`` (Cityscapes labelIds -> trainIds), ``one_based``, ``binary_255``,
    ``reduce_zero_label``, ``void_to_ignore`` (255 -> ignore_index) or ``colour_to_index``
    (an [H, W, 3] colour mask -> ids through the preset's palette, exact colours only);
    or pass ``mapping={from: to}``.
    """
    if mapping is None and fix in _COLOUR:
        if preset is None:
            raise ValueError("fix='colour_to_index' needs a preset (its palette)")
        return _remap_colours(mask, preset, ignore_index)
    return _remap_values(mask, remap_table(fix, preset, num_classes, ignore_index, mapping))


class Remap:
    """A transform that applies :func:`remap` to masks: numpy arrays and tensors passed alone,
    and, inside a sample (tuple, list or dict) of torchvision ``v2`` transforms, the
    ``tv_tensors.Mask`` entries only (images pass through unchanged), so it composes with
    ``v2.Compose``."""

    def __init__(
        self,
        preset: Optional[str] = None,
        fix: str = "label_ids",
        num_classes: Optional[int] = None,
        ignore_index: Optional[int] = None,
        mapping: Optional[Dict[int, int]] = None,
    ) -> None:
        self.preset, self.fix, self.ignore_index = preset, fix, ignore_index
        self.colour = mapping is None and fix in _COLOUR
        self.table = None if self.colour else remap_table(fix, preset, num_classes, ignore_index, mapping)

    def _one(self, mask: Any) -> Any:
        if self.colour:
            return _remap_colours(mask, self.preset, self.ignore_index)
        return _remap_values(mask, self.table)

    def _walk(self, x: Any) -> Any:
        if type(x).__name__ == "Mask" and _is_torch(x):
            return self._one(x)
        if isinstance(x, dict):
            return {k: self._walk(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(self._walk(v) for v in x)
        return x

    def __call__(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        if not isinstance(sample, (dict, list, tuple)) and type(sample).__name__ != "Mask":
            return self._one(sample)
        return self._walk(sample)

    def __repr__(self) -> str:
        return f"Remap(preset={self.preset!r}, fix={self.fix!r})"


__all__: Sequence[str] = ["Remap", "remap", "remap_table"]
