"""A sharded scan fanned out on a Ray cluster, merged into the single-machine report.

    labelguard-ray --address HEAD:6379 --shards 32 DATA --preset cityscapes --format json -o report.json

    from labelguard.fanout import ray_scan
    report = ray_scan(["DATA"], shards=32, scan_args=["--preset", "cityscapes"], address="HEAD:6379")

One Ray task per shard runs `labelguard scan ... --shard K/N --format json` on whichever node Ray
picks and returns the part's bytes to the driver (no shared filesystem for the reports; the data
must be at the same path on every node). The driver merges the parts with
`labelguard merge`, which refuses parts that do not belong together and writes outputs atomically;
the merged report is byte for byte the one `labelguard scan` gives on one machine.

Every node needs this package (the same version) in the Python that runs Ray's workers: the task
runs `python -m labelguard` there. Arguments are routed by name: the fan-out's own options below,
the output options (`--format`, `-o`, `--html`, `--write-weights`, `--show`, `-q`,
`--write-through`) to the merge, everything else (paths included) to each shard's scan. Paths
relative to the driver's directory are read relative to that directory on each node.

Each attempt of a shard is limited to `--task-timeout` seconds; Ray retries a failed or timed-out
shard `--retries` times (a node lost mid-task too), then the run stops with exit code 2 and the
shard's error. The driver itself never waits longer than the scan could take with every retry.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Sequence

DEFAULT_TASK_TIMEOUT_S = 6 * 3600
DEFAULT_RETRIES = 2
#: How long the driver allows beyond the shards' own limits: scheduling, worker start-up, the merge.
SCHEDULING_SLACK_S = 300
CONNECT_TIMEOUT_S = 10

#: The options of `labelguard scan` that say where and how the report is written: they go to the
#: merge (the parts themselves are always JSON), each with whether it takes a value.
MERGE_OPTIONS = {
    "--format": True,
    "-o": True,
    "--output": True,
    "--html": True,
    "--write-weights": True,
    "--show": True,
    "-q": False,
    "--quiet": False,
    "--write-through": False,
}


class FanoutError(RuntimeError):
    """The fan-out could not produce a report: a shard failed after its retries, the cluster
    cannot run the tasks, or the run passed its deadline."""


class ShardFailed(RuntimeError):
    """One attempt of one shard's scan ended without a report (raised on the worker; Ray retries it)."""


@dataclass
class Part:
    """One shard's JSON report, and where and how long it ran."""

    shard: str
    report: bytes
    node: str
    seconds: float


def labelguard_command() -> list[str]:
    """The `labelguard` command of this package in this Python (on a worker: the worker's)."""
    return [sys.executable, "-m", "labelguard"]


def _scan_shard(
    command: list[str] | None, shard: str, scan_args: list[str], jobs: int, timeout_s: float, driver_cwd: str
) -> Part:
    """A Ray task: `labelguard scan --shard K/N --format json`, its stdout returned as bytes."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    cwd = driver_cwd if os.path.isdir(driver_cwd) else None
    cmd = [*(command or labelguard_command()), "scan", *scan_args, "--shard", shard, "--jobs", str(jobs), "--format", "json", "--quiet"]
    start = time.monotonic()
    out = _run_stoppable(cmd, cwd, start + timeout_s)
    if out is None:
        raise ShardFailed(f"shard {shard} on node {node[:12]}: the scan ran past {timeout_s:g} s and was stopped")
    # Exit 0 (no errors) and 1 (errors found) are reports; anything else is a scan that could not run.
    failed = f"shard {shard} on node {node[:12]}: `labelguard scan` exited {out.returncode}"
    if out.returncode not in (0, 1):
        raise ShardFailed(f"{failed}: {out.stderr.decode(errors='replace').strip()[-4000:]}")
    try:
        json.loads(out.stdout)
    except ValueError:
        raise ShardFailed(f"{failed} without a JSON report on stdout") from None
    return Part(shard, out.stdout, node, time.monotonic() - start)


def _run_stoppable(cmd: list[str], cwd: str | None, deadline: float) -> subprocess.CompletedProcess | None:
    """`cmd`'s output, or None past `deadline` (the command killed). It waits in short steps: Ray
    cancels a running task by raising KeyboardInterrupt in it between two bytecodes, which a
    single blocking wait would never reach; on it (or any error) the command is killed too."""
    with subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    proc.kill()
                    proc.communicate()
                    return None
                try:
                    stdout, stderr = proc.communicate(timeout=min(left, 0.5))
                    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
                except subprocess.TimeoutExpired:
                    continue
        except BaseException:
            proc.kill()
            raise


def _import_ray():
    try:
        import ray
    except ImportError:
        raise FanoutError("the Ray fan-out needs Ray: pip install ray") from None
    return ray


def _slots(ray, jobs: int) -> int:
    """How many shards of `jobs` CPUs the live nodes run at once; an error if no node fits one."""
    cpus = [n["Resources"].get("CPU", 0) for n in ray.nodes() if n.get("Alive")]
    if not cpus or max(cpus) < jobs:
        raise FanoutError(
            f"no node of the Ray cluster has {jobs} CPU(s) for one shard (the most is {max(cpus, default=0):g}): lower --jobs"
        )
    return sum(int(c // jobs) for c in cpus)


def _failure(err: BaseException) -> str:
    """The worker's message for a shard that failed, without Ray's traceback around it."""
    cause = getattr(err, "cause", None)
    if isinstance(cause, ShardFailed):
        return str(cause)
    first = str(err).strip().splitlines()
    return f"{type(err).__name__}: {first[0] if first else ''}"


def scan_shards(
    scan_args: Sequence[str],
    shards: int | None = None,
    *,
    jobs: int = 1,
    retries: int = DEFAULT_RETRIES,
    task_timeout_s: float = DEFAULT_TASK_TIMEOUT_S,
    command: Sequence[str] | None = None,
    log=None,
) -> list[Part]:
    """Runs one Ray task per shard on the connected cluster (`ray.init` first) and returns the
    parts in shard order. `shards` defaults to as many as the cluster runs at once; `command` is
    the `labelguard` command on the nodes (default: this package's, in the worker's Python)."""
    ray = _import_ray()
    if any(a == "--shard" or a.startswith("--shard=") for a in scan_args):
        raise FanoutError("--shard is the fan-out's to set: use --shards N")
    if jobs < 1 or retries < 0 or task_timeout_s <= 0:
        raise FanoutError("--jobs must be at least 1, --retries at least 0 and --task-timeout positive")
    slots = _slots(ray, jobs)
    shards = shards or slots
    if shards < 1:
        raise FanoutError("--shards must be at least 1")
    task = ray.remote(_scan_shard).options(
        num_cpus=jobs,
        max_retries=retries,
        retry_exceptions=True,
        scheduling_strategy="SPREAD",
        name="labelguard-scan-shard",
    )
    args = (list(scan_args), jobs, task_timeout_s, os.getcwd())
    refs = {task.remote(command and list(command), f"{k}/{shards}", *args): k for k in range(1, shards + 1)}
    # Every shard's attempts in as many waves as the cluster needs: the longest a correct run takes.
    deadline = time.monotonic() + math.ceil(shards / slots) * (retries + 1) * task_timeout_s + SCHEDULING_SLACK_S
    parts: dict[int, Part] = {}
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
            if not done:
                raise FanoutError(f"{len(pending)} shard(s) not finished by the deadline; is the cluster still up?")
            k = refs[done[0]]
            try:
                part = ray.get(done[0])
            except Exception as err:  # noqa: BLE001 - every failure of a task is reported the same way
                raise FanoutError(f"shard {k}/{shards} failed after {retries + 1} attempt(s): {_failure(err)}") from None
            parts[k] = part
            if log:
                log(f"shard {part.shard} done on node {part.node[:12]} in {part.seconds:.1f} s")
    finally:
        # Not force: the running task gets a KeyboardInterrupt, on which subprocess.run kills its scan.
        for ref in pending:
            ray.cancel(ref)
    return [parts[k] for k in sorted(parts)]


def merge_parts(parts: Sequence[Part], merge_args: Sequence[str]) -> subprocess.CompletedProcess:
    """`labelguard merge` of the parts (written to a temporary directory) with `merge_args`."""
    with tempfile.TemporaryDirectory(prefix="labelguard-parts-") as tmp:
        paths = []
        for i, part in enumerate(parts, 1):
            path = os.path.join(tmp, f"part{i}.json")
            with open(path, "wb") as f:
                f.write(part.report)
            paths.append(path)
        return subprocess.run([*labelguard_command(), "merge", *paths, *merge_args], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)


def _connect(ray, address: str | None) -> None:
    """`ray.init(address)`, after a quick check that a HOST:PORT address answers (for one that
    does not, `ray.init` retries for about ten minutes)."""
    if ray.is_initialized():
        return
    host, _, port = (address or "").rpartition(":")
    if host and port.isdigit() and "://" not in address:
        try:
            socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
        except OSError as err:
            raise FanoutError(f"cannot reach the Ray cluster at {address}: {err}") from None
    try:
        ray.init(address=address, log_to_driver=False, logging_level="WARNING")
    except Exception as err:  # noqa: BLE001 - Ray raises several kinds for an unreachable cluster
        raise FanoutError(f"cannot connect to the Ray cluster at {address or 'the default address'}: {err}") from None


def ray_scan(
    paths: Sequence[str | os.PathLike],
    shards: int | None = None,
    scan_args: Sequence[str] = (),
    address: str | None = None,
    *,
    jobs: int = 1,
    retries: int = DEFAULT_RETRIES,
    task_timeout_s: float = DEFAULT_TASK_TIMEOUT_S,
) -> dict:
    """The merged JSON report of `labelguard scan PATHS SCAN_ARGS` fanned out over `shards` Ray
    tasks of `jobs` CPUs each. `address` is `ray.init`'s (None: RAY_ADDRESS, a running local
    cluster, or a new one). Raises FanoutError when a shard fails after its retries."""
    ray = _import_ray()
    _connect(ray, address)
    parts = scan_shards([*map(os.fspath, paths), *scan_args], shards, jobs=jobs, retries=retries, task_timeout_s=task_timeout_s)
    merged = merge_parts(parts, ["--format", "json"])
    if merged.returncode not in (0, 1):
        raise FanoutError("labelguard merge refused the parts (see its message above)")
    return json.loads(merged.stdout)


def split_args(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """`labelguard scan` arguments split into the scan's and the merge's (MERGE_OPTIONS)."""
    scan, merge = [], []
    it = iter(args)
    for arg in it:
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if arg == "--":
            scan.extend([arg, *it])
        elif name in MERGE_OPTIONS:
            merge.append(arg)
            if MERGE_OPTIONS[name] and name == arg:
                merge.append(next(it, ""))
        else:
            scan.append(arg)
    return scan, merge


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="labelguard-ray",
        allow_abbrev=False,
        description="`labelguard scan` fanned out over a Ray cluster: one task per shard, merged into "
        "the report a single-machine scan gives. Arguments other than these go to `labelguard scan` "
        "(output options to the merge).",
        epilog="Exit codes: 0 no errors, 1 errors found, 2 the fan-out or a shard failed.",
    )
    parser.add_argument("--address", help="the Ray cluster (ray.init's address; default: RAY_ADDRESS or a local cluster)")
    parser.add_argument("--shards", type=int, help="number of shards (default: as many as the cluster runs at once)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="CPUs per task, and the scan's --jobs (default 1)")
    parser.add_argument("--retries", type=int, default=DEFAULT_RETRIES, help=f"retries of a failed shard (default {DEFAULT_RETRIES})")
    parser.add_argument(
        "--task-timeout",
        type=float,
        default=DEFAULT_TASK_TIMEOUT_S,
        metavar="S",
        help=f"seconds one attempt of one shard may run (default {DEFAULT_TASK_TIMEOUT_S})",
    )
    ours, rest = parser.parse_known_args(argv)
    scan_args, merge_args = split_args(rest)
    if not scan_args:
        parser.error("no PATH to scan")

    def log(msg: str) -> None:
        print(f"labelguard-ray: {msg}", file=sys.stderr, flush=True)

    try:
        ray = _import_ray()
        _connect(ray, ours.address)
        parts = scan_shards(
            scan_args, ours.shards, jobs=ours.jobs, retries=ours.retries, task_timeout_s=ours.task_timeout, log=log
        )
    except FanoutError as err:
        log(f"error: {err}")
        return 2
    merged = merge_parts(parts, merge_args)
    sys.stdout.buffer.write(merged.stdout)
    sys.stdout.flush()
    return merged.returncode


if __name__ == "__main__":
    # The tasks must be this module's functions as the workers import them, not __main__'s.
    from labelguard.fanout import main as _main

    sys.exit(_main())
