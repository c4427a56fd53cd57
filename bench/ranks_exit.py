"""Seconds from launch to exit of a data-parallel job (gloo, CPU) whose rank 1 is refused by a
guard, with and without `labelguard run` (issue 25).

Cases, each with the bad rank holding a non-daemon thread (so that its process does not end
after the exception, as a process group's destructor or a logging thread can keep it) and the
process group's timeout at `--timeout` seconds (gloo's default is 30 minutes):
- torchrun, 2 ranks: without labelguard the others wait in their allreduce until the timeout;
- mp.spawn(join=True), 2 ranks: likewise;
- plain processes started by a shell script that does not watch them, the peer in a wait that
  never notices a dead rank (as NCCL's does not): without labelguard it never ends (`--limit`);
  `labelguard run --hang-timeout 10` ends it.
And the same torchrun and mp.spawn jobs without the hanging thread, for the baseline.

    python bench/ranks_exit.py --bin target/release/labelguard [--runs 3] [--timeout 30]
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

JOB = Path(__file__).resolve().parents[1] / "python" / "tests" / "ranks_job.py"
PLAIN = """
RANK=1 WORLD_SIZE=2 {py} -c 'import labelguard, torch, torch.nn.functional as F
labelguard.enable()
F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 7]))' &
RANK=0 WORLD_SIZE=2 {py} -c 'import time; time.sleep(3600)' &
wait
"""


def port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(cmd, limit):
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        code = p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.wait()
        return None, None
    return time.monotonic() - start, code


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--limit", type=float, default=120, help="give up on a run after this many seconds")
    args = ap.parse_args()
    py = sys.executable
    t = ["--timeout", str(args.timeout), "--bad-rank", "1"]
    cases = {
        "torchrun, bad rank exits": lambda: [py, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", str(JOB), *t],
        "torchrun, bad rank hangs": lambda: [py, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", str(JOB), *t, "--hang"],
        "mp.spawn, bad rank exits": lambda: [py, str(JOB), "--spawn", "2", "--port", str(port()), *t],
        "mp.spawn, bad rank hangs": lambda: [py, str(JOB), "--spawn", "2", "--port", str(port()), *t, "--hang"],
        "plain processes, peer never notices": lambda: ["sh", "-c", PLAIN.format(py=py)],
    }
    print(f"| job (2 ranks, gloo, collective timeout {args.timeout:g} s) | without labelguard, s | `labelguard run`, s |")
    print("| --- | --- | --- |")
    for name, cmd in cases.items():
        cells = []
        # --hang-timeout 10 (the default is 30): see docs/guide/run.md, multi-process jobs.
        for wrap in ([], [args.bin, "run", "--hang-timeout", "10", "--"]):
            # A run that waits for the timeout takes the same time every run: once is enough.
            runs = args.runs if wrap or "exits" in name else 1
            times = []
            for _ in range(runs):
                took, code = timed(wrap + cmd(), args.limit)
                times.append(took)
            done = [x for x in times if x is not None]
            if len(done) < len(times):
                cells.append(f"> {args.limit:g} (killed)")
            else:
                cells.append(f"{statistics.median(done):.1f}" + (f" ({min(done):.1f}-{max(done):.1f})" if len(done) > 1 else ""))
        print(f"| {name} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
