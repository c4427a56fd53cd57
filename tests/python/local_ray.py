"""A Ray cluster of real `ray start` processes on this machine, for the fan-out's tests and
benchmark: a head and worker nodes, each its own `ray start --block` session."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

RAY = [sys.executable, "-m", "ray.scripts.scripts"]
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def local_cluster(nodes: int = 2, cpus_per_node: int = 1):
    """Yields the address (127.0.0.1:PORT; Ray advertises the machine's own address for it) of a
    cluster of `nodes` nodes, this process connected as its driver; stops every process of it on
    exit, failure included."""
    import ray

    tmp = tempfile.mkdtemp(prefix="lgray")  # short: Ray's socket paths live under it
    address = f"127.0.0.1:{free_port()}"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    node = ["--num-cpus", str(cpus_per_node), "--object-store-memory", str(100 << 20), "--block", "--disable-usage-stats"]
    head = ["--head", "--port", address.split(":")[1], "--include-dashboard", "false", "--temp-dir", tmp]
    procs = []
    try:
        for i in range(nodes):
            with open(os.path.join(tmp, f"node{i}.log"), "wb") as log:
                procs.append(
                    subprocess.Popen(
                        [*RAY, "start", "--node-ip-address", "127.0.0.1", *(head if i == 0 else ["--address", address]), *node],
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                        start_new_session=True,
                    )
                )
            if i == 0:
                _wait(lambda: _answers(address), "the head node", procs)
        ray.init(address=address, log_to_driver=False, logging_level="WARNING")
        _wait(lambda: sum(n["Alive"] for n in ray.nodes()) == nodes, f"{nodes} nodes", procs)
        yield address
    finally:
        ray.shutdown()
        for proc in reversed(procs):  # the workers first, while the head can still drain them
            _stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)


def _answers(address: str) -> bool:
    host, port = address.split(":")
    with socket.socket() as s:
        return s.connect_ex((host, int(port))) == 0


def _wait(ready, what: str, procs) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not ready():
        if any(p.poll() is not None for p in procs):
            raise RuntimeError(f"{what}: `ray start` exited")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start in {START_TIMEOUT_S} s")
        time.sleep(0.5)


def _stop(proc: subprocess.Popen) -> None:
    """Stops one `ray start --block` and every process of its session (raylet, GCS, workers) by
    their ids. Not `ray stop`: that stops every Ray process of the machine, a user's own cluster too."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)  # `ray start --block` shuts its node down on SIGTERM
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getsid(int(pid)) == proc.pid:
                os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    proc.wait(30)
