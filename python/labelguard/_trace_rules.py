"""Dynamo knows PyTorch's functions by object, not by name: `trace_rules.get_torch_obj_rule_map`
loads each listed name (`torch.gather`, `torch.take_along_dim`, ...) once per process, the first
time dynamo looks a callable up, and caches the objects it found (torch 2.15,
torch/_dynamo/trace_rules.py: `functools.cache`, `load_object(name)`). Where that happens while
`enable()`'s wrappers sit at those names (enable() before the first compile: the common order,
or torch._dynamo imported while they are in place), the map holds the wrappers and not PyTorch's
builtins. A wrapper dynamo then inlines reaches the builtin, which the map does not know:
"Attempted to call function marked as skipped" (`torch._VariableFunctionsClass.gather`), a graph
break at every `torch.gather(...)` call, an error under `fullgraph=True` (issue 41's sweep).

`known_originals` puts the map back as it is without labelguard: each wrapped name's builtin under
the name's rule, and no wrapper in it (a wrapper must be inlined, so that its check goes into the
graph). The map is PyTorch's own cached dict; only labelguard's own keys change.
"""

from __future__ import annotations

import sys
from types import FunctionType
from typing import Any, Dict, Tuple


def known_originals(originals: Dict[Tuple[str, str], Any]) -> None:
    """`originals`: (module path, attribute) of each wrapped site -> PyTorch's function there
    (enable()'s `_originals`). Called by enable() once its wrappers are in place, with dynamo
    imported; a torch without these internals is left alone (its own lookups decide)."""
    rules_module = sys.modules.get("torch._dynamo.trace_rules")
    build = getattr(rules_module, "get_torch_obj_rule_map", None)
    named = getattr(rules_module, "torch_name_rule_map", None)
    if build is None or named is None:
        return
    rules = build()
    for key in [k for k in rules if type(k) is FunctionType and hasattr(k, "__labelguard_original__")]:
        del rules[key]
    sites = {f"{path}.{attr}": original for (path, attr), original in originals.items() if callable(original)}
    for table in named:
        for name in sites.keys() & table.keys():
            rules.setdefault(sites[name], table[name])
