"""Shared helpers of the fault tests: event streams, ``uth`` subprocesses, waiting."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.reliability import corpus

ROOT = Path(__file__).resolve().parents[2]
UTH = [sys.executable, "-m", "pipeline.cli"]


def floor(tables: int, name: str = "floor") -> list[dict[str, Any]]:
    """``tables`` corpus tables (TableOpened + 3 valid hands each, 65 events), interleaved
    round-robin so every batch mixes tables and each table's order is kept."""
    streams = [corpus.table(f"{name}{t}").events for t in range(tables)]
    out: list[dict[str, Any]] = []
    for group in itertools.zip_longest(*streams):
        out.extend(e for e in group if e is not None)
    return out


def uth_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **extra}
    env.pop("COVERAGE_PROCESS_START", None)
    return env


def uth(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
        **kw: Any) -> subprocess.CompletedProcess[str]:
    """Run ``uth ARGS`` to completion; output captured as text."""
    return subprocess.run([*UTH, *args], cwd=ROOT, env=env or uth_env(), text=True,
                          capture_output=True, timeout=timeout, **kw)


@contextlib.contextmanager
def uth_process(*args: str, env: dict[str, str] | None = None,
                stdout: Path | None = None, stderr: Path | None = None,
                **kw: Any) -> Iterator[subprocess.Popen[bytes]]:
    """``uth ARGS`` in the background; killed (SIGKILL) on exit if still running."""
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL  # noqa: SIM115
    if stderr is not None and stderr == stdout:
        err: Any = subprocess.STDOUT
    else:
        err = open(stderr, "wb") if stderr else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen([*UTH, *args], cwd=ROOT, env=env or uth_env(), stdout=out,
                            stderr=err, **kw)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (out, err):
            if f not in (subprocess.DEVNULL, subprocess.STDOUT):
                f.close()


def wait_until(condition: Callable[[], Any], timeout: float, what: str,
               step: float = 0.1, proc: subprocess.Popen[bytes] | None = None) -> Any:
    """Poll ``condition`` until truthy (returned); fail with ``what`` after ``timeout``.

    Not a timed assertion: the timeout only bounds a hang; a slow machine passes."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"process exited ({proc.returncode}) before: {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f}s waiting for: {what}")
        time.sleep(step)


def catches_sigterm(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the process has installed its SIGTERM handler (Linux: SigCgt in
    /proc/PID/status). A SIGTERM before that, during start-up, kills it the default way."""
    try:
        status = Path(f"/proc/{proc.pid}/status").read_text()
    except OSError:
        return True  # not Linux (or gone): nothing better to wait for
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return True


def terminate(proc: subprocess.Popen[bytes], timeout: float = 60) -> int:
    """SIGTERM (once the process handles it) and wait for the exit status."""
    wait_until(lambda: catches_sigterm(proc), 120, "a SIGTERM handler", step=0.05, proc=proc)
    proc.send_signal(signal.SIGTERM)
    return proc.wait(timeout=timeout)


def source_log(path: Path) -> tuple[str, int, int]:
    """A SQLite log of 40 clean tables plus the whole bad-input corpus (rejected lines,
    rule-breaking hands: findings). Returns its URL, the valid and the rejected counts."""
    lines = [corpus.encode(e) for e in floor(40, "kill")]
    manifest = json.loads((corpus.CORPUS_DIR / corpus.MANIFEST).read_text())
    bad = 0
    for entry in manifest["classes"]:
        lines += (corpus.CORPUS_DIR / entry["file"]).read_bytes().split(b"\n")[:-1]
        bad += len(entry["bad_lines"])
    url = f"sqlite:///{path}"
    from events.logs import open_log

    with open_log(url) as log:
        log.append([("", v) for v in lines])
    return url, len(lines) - bad, bad


def load_in_process(capsys: Any, *args: str) -> tuple[int, str, str]:
    """``uth ARGS`` in this process (Dagster is imported once per test session instead of
    once per command: 10-20 s each on a busy machine)."""
    from pipeline.cli import main

    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` now (children, their children...), from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_bytes()
            except OSError:
                continue
            fields = stat.rsplit(b")", 1)[-1].split()
            if fields[0] != b"Z":  # a zombie holds no memory and runs nothing
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (not gone, not zombies)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != b"Z":
            alive.add(pid)
    return alive
