"""enable() inside torch.compile'd training steps (issue 27), against the same compiled steps
without labelguard:

1. Warm steps (after compilation): forward, loss, backward, SGD step of the models of `cases()`
   (issue 27's three; issue 41's MLP, functional embedding, index_put_ one-hot and a
   max-autotune-no-cudagraphs classifier) compiled by inductor (fullgraph=True), on one torch thread, timed by the thread's CPU time (see
   bench/python_api.py's `thread_timed`). The step with labelguard's in-graph check and the step
   without it are both compiled in this process, from two copies of the model whose `forward`s
   are distinct code objects (`own_code`): with `enable()` on, the wrappers trace the check into
   the graph while labelguard is active and trace the bare call while it is not, so each copy
   holds one graph, and flipping the switch between rounds runs one or the other (no
   recompilation; the script checks dynamo's counters). Two such pairs, used in turn. Paired rounds, interleaved; overhead = median over rounds of
   (checked / plain - 1), and the ratio of the two minima beside it (a loaded machine's noise
   only adds time).
2. Compile time: the first step (dynamo + AOTAutograd + inductor, caches off, fullgraph=False as
   torch.compile's default, so that the trace-time shape probe of each check runs) with and
   without labelguard, alternating, medians; CPU time of this process and of the C++ compiler it runs
   (inductor compiles in-process with TORCHINDUCTOR_COMPILE_THREADS=1, so the compiler's
   processes are waited for and counted), which, unlike wall time, holds still on a loaded machine.
3. The floor (`--floor`): what one check's op call costs by itself, outside any step: the op's
   call with nothing to check (torch's dispatch to the Python kernel and its 0-d one), an op of
   the same schema whose kernel only makes the one (a bare custom op), and the whole call with a
   cross-entropy check of 128 labels.

    make bench-compiled        (or: python bench/compiled.py [--rounds N] [--compile-rounds N] [--floor] [--only WORD])
"""

import argparse
import copy
import types
import warnings
import os
import statistics
import time

os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")  # (compile time is measured)
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
warnings.filterwarnings("ignore", "dynamo_pgo force disabled")

import torch  # noqa: E402
import torch._dynamo as dynamo  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

import labelguard  # noqa: E402
from labelguard import _guard  # noqa: E402


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20000, 128)
        self.mlp = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 20))

    def forward(self, ids, labels):
        return F.cross_entropy(self.mlp(self.emb(ids).mean(1)), labels)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                 nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                 nn.Flatten(), nn.Linear(64, 10))
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    def forward(self, x, labels):
        return self.criterion(self.net(x), labels)


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(1000, 64)
        self.pos = nn.Embedding(64, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
        self.body = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(64, 1000)

    def forward(self, ids, labels):
        h = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        return F.cross_entropy(self.head(self.body(h)).flatten(0, 1), labels.flatten())


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 100))

    def forward(self, x, labels):
        return F.cross_entropy(self.net(x), labels)


class FunctionalEmbedding(nn.Module):
    """F.embedding on a weight the module holds (no nn.Embedding), then a linear head."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(5000, 64))
        self.head = nn.Linear(64, 10)

    def forward(self, ids, labels):
        return F.cross_entropy(self.head(F.embedding(ids, self.weight).mean(1)), labels)


class IndexPutOneHot(nn.Module):
    """A one-hot target written with index_put_, then BCE with logits."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 50))

    def forward(self, x, labels):
        logits = self.net(x)
        target = torch.zeros_like(logits)
        target.index_put_((torch.arange(labels.shape[0]), labels), torch.ones(()))
        return F.binary_cross_entropy_with_logits(logits, target)


#: `--only`: the steps whose name holds one of these words (all when empty).
ONLY: list = []


def cases():
    torch.manual_seed(0)
    return [case for case in _all_cases() if not ONLY or any(word in case[0] for word in ONLY)]


def _all_cases():
    return [
        ("MLP 256-512-512-100, batch 256, CE", MLP(), (torch.randn(256, 256), torch.randint(0, 100, (256,)))),
        ("functional embedding 5000x64, batch 128x32, CE over 10", FunctionalEmbedding(),
         (torch.randint(0, 5000, (128, 32)), torch.randint(0, 10, (128,)))),
        ("index_put_ one-hot over 50, batch 256, BCE with logits", IndexPutOneHot(),
         (torch.randn(256, 128), torch.randint(0, 50, (256,)))),
        ("MLP classifier, mode=max-autotune-no-cudagraphs", MLP(), (torch.randn(256, 256), torch.randint(0, 100, (256,))),
         {"mode": "max-autotune-no-cudagraphs"}),
        ("text classifier: embedding 20000x128, batch 256x64, CE over 20", TextClassifier(),
         (torch.randint(0, 20000, (256, 64)), torch.randint(0, 20, (256,)))),
        ("small CNN 32x32, batch 64, CrossEntropyLoss(label_smoothing=0.1)", SmallCNN(),
         (torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,)))),
        ("2-layer transformer LM, token + position embeddings, batch 16x64", TinyLM(),
         (torch.randint(0, 1000, (16, 64)), torch.randint(0, 1000, (16, 64)))),
    ]


def make_step(model, fullgraph=True, **options):
    compiled = torch.compile(model, fullgraph=fullgraph, **options)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def step(*batch):
        opt.zero_grad(set_to_none=True)
        loss = compiled(*batch)
        loss.backward()
        opt.step()
        return loss

    return step


def thread_timed(fn, reps):
    start = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - start) / reps


def own_code(model):
    """The model with a `forward` of its own code object. Dynamo keeps a code object's compiled
    graphs in one list and tries their guards in turn: with both graphs on one code object, each
    step of one of them first failed the other's guards (about 50 µs a step, a cost no run with
    labelguard on pays: it has one graph)."""
    f = type(model).forward
    code = f.__code__.replace()
    model.forward = types.MethodType(types.FunctionType(code, f.__globals__, f.__name__, f.__defaults__, f.__closure__), model)
    return model


def warm(rounds, reps):
    labelguard.enable()
    rows = []
    for name, model, batch, *options in cases():
        dynamo.reset()
        # Two pairs of copies, the checked one first in one pair and second in the other, used
        # round by round in turn: where a copy's memory sits does not favour either side.
        copies = [own_code(copy.deepcopy(model)) for _ in range(4)]
        pairs = [{True: make_step(copies[0], **(options[0] if options else {})), False: make_step(copies[1], **(options[0] if options else {}))},
                 {False: make_step(copies[2], **(options[0] if options else {})), True: make_step(copies[3], **(options[0] if options else {}))}]
        for steps in pairs:
            for active in (True, False):  # compile each copy's one graph, then only run them
                _guard.config["active"] = active
                steps[active](*batch)
                steps[active](*batch)
        counters.clear()
        ratios, added, plain_ms, checked_ms = [], [], [], []
        for r in range(rounds):
            times = {}
            steps = pairs[(r // 2) % 2]
            for active in ((True, False) if r % 2 else (False, True)):
                _guard.config["active"] = active
                times[active] = thread_timed(lambda: steps[active](*batch), reps)
            ratios.append(times[True] / times[False] - 1)
            added.append(times[True] - times[False])
            plain_ms.append(times[False] * 1e3)
            checked_ms.append(times[True] * 1e3)
        recompiled = sum(counters["recompiles"].values()) + counters["stats"]["unique_graphs"]
        rows.append((name, statistics.median(plain_ms), statistics.median(ratios), min(checked_ms) / min(plain_ms) - 1, statistics.median(added), recompiled))
        _guard.config["active"] = True
    labelguard.disable()
    print(f"\nwarm compiled training steps (inductor, fullgraph, 1 thread, thread CPU time), {rounds} paired rounds of {reps} steps")
    print("| training step | plain ms | with labelguard (median of paired ratios) | ratio of minima | added | graphs compiled while timing |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, ms, ratio, minima, add, recompiled in rows:
        print(f"| {name} | {ms:.1f} | {ratio:+.1%} | {minima:+.1%} | {add * 1e6:+.0f} µs | {recompiled} |")


def floor(reps=20000):
    """Per-call microseconds of the check op's pieces (median of 7 repeats of `reps` calls)."""
    import json
    import timeit
    from labelguard import _compiled

    labelguard.enable()
    lib = torch.library.Library("labelguard_floor", "DEF")  # the same schema, a kernel doing nothing else
    lib.define("check(Tensor[] tensors, SymInt[] dims, float[] floats, str spec) -> Tensor[]")
    lib.impl("check", lambda tensors, dims, floats, spec: [t.new_ones(()) for t in tensors], "CompositeExplicitAutograd")
    bare, op = torch.ops.labelguard_floor.check.default, getattr(torch.ops, _compiled._NAMESPACE).check_through.default
    labels = [torch.randint(0, 10, (128,))]
    def through(key, slots):
        return json.dumps({"checks": [[json.dumps({"key": key, "slots": slots, "names": [], "frames": []}), [0], 2, 0]]})

    nothing = through("(none)", [])
    loss = through("torch.nn.functional.cross_entropy", [["s", "float32", 2], ["t", 0]])
    rows = [
        ("a Python function call (no op)", lambda: None),
        ("bare custom op with the same schema: its kernel makes the 0-d one", lambda: bare(labels, [128, 10], [], nothing)),
        ("labelguard::check_through with nothing to check (the labels held)", lambda: op(labels, [], [128, 10], [], nothing)),
        ("labelguard::check_through, cross_entropy over 10 classes, 128 labels held", lambda: op(labels, [], [128, 10], [], loss)),
    ]
    print(f"\nthe floor: one check op call by itself, µs per call (median of 7 x {reps}), load {os.getloadavg()[0]:.2f}")
    print("| call | µs |")
    print("| --- | --- |")
    for name, fn in rows:
        print(f"| {name} | {statistics.median(timeit.repeat(fn, number=reps, repeat=7)) / reps * 1e6:.2f} |")
    labelguard.disable()


def cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def compile_times(rounds):
    rows = []
    for name, model, batch, *options in cases():
        times = {True: [], False: []}
        for r in range(rounds):
            for enable in ((True, False) if r % 2 else (False, True)):
                dynamo.reset()
                if enable:
                    labelguard.enable()
                step = make_step(model, fullgraph=False, **(options[0] if options else {}))  # as users compile: the shape probe runs
                start = cpu_seconds()
                step(*batch)
                times[enable].append(cpu_seconds() - start)
                labelguard.disable()
        plain, checked = statistics.median(times[False]), statistics.median(times[True])
        rows.append((name, plain, checked))
    print(f"\ncompile time: the first step (dynamo + AOTAutograd + inductor, caches off), CPU time with the C++ compiler's, median of {rounds}")
    print("| training step | plain s | with labelguard s | ratio |")
    print("| --- | --- | --- | --- |")
    for name, plain, checked in rows:
        print(f"| {name} | {plain:.2f} | {checked:.2f} | {checked / plain - 1:+.1%} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--compile-rounds", type=int, default=3)
    ap.add_argument("--no-warm", action="store_true", help="only the compile times")
    ap.add_argument("--floor", action="store_true", help="also the cost of one check op call by itself")
    ap.add_argument("--only", action="append", default=[], metavar="WORD", help="only the steps whose name holds WORD (repeatable): --only embedding --only one-hot")
    args = ap.parse_args()
    ONLY.extend(args.only)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, labelguard {labelguard.__version__}, load {os.getloadavg()[0]:.2f}")
    if not args.no_warm:
        warm(args.rounds, args.reps)
    if args.compile_rounds:
        compile_times(args.compile_rounds)
    if args.floor:
        floor()


if __name__ == "__main__":
    main()
