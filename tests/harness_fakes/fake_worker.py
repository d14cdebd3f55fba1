"""A stand-in for the GPU worker: behaves as told by argv[1] (ok, crash, oom, hang, spawn_hang, segv)."""

import os
import signal
import subprocess
import sys
import time


def _write_pid(path: str, pid: int) -> None:
    """Atomically, so that a reader never sees an empty file."""
    with open(path + ".tmp", "w") as fh:
        fh.write(str(pid))
    os.replace(path + ".tmp", path)


def main() -> int:
    mode = sys.argv[1]
    print(f"fake worker start mode={mode}", flush=True)
    if mode == "ok":
        print("step 1 ok", flush=True)
        return 0
    if mode == "crash":
        raise AssertionError("Tried getting all rng states but RNG Tracker has not been initalized!")
    if mode == "oom":
        print("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", flush=True)
        return 1
    if mode == "hang":
        time.sleep(600)
    if mode == "spawn_hang":
        # A grandchild in its own session: must still be killed.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        _write_pid(sys.argv[2], child.pid)
        time.sleep(600)
    if mode == "orphan":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        _write_pid(sys.argv[2], child.pid)
        return 0  # at once: the orphan is found by the job's marker, not by a race
    if mode == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    return 3


if __name__ == "__main__":
    sys.exit(main())
