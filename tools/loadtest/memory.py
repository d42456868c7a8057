"""The server's resident memory, read from /proc (Linux): its PID given, or found by its port."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

PROC = Path("/proc")
LISTEN = "0A"  # TCP state in /proc/net/tcp*


def _listening_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if len(cols) > 9 and cols[3] == LISTEN and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(cols[9])
    return inodes


def pid_listening_on(port: int) -> int | None:
    """The PID of the process listening on TCP `port` (among the processes this user may inspect)."""
    targets = {f"socket:[{inode}]" for inode in _listening_inodes(port)}
    if not targets:
        return None
    for proc in PROC.iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) in targets:
                    return int(proc.name)
        except OSError:
            continue
    return None


def rss_bytes(pid: int) -> int | None:
    """Resident set size of `pid` in bytes (VmRSS), None once the process is gone."""
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


class RssSampler:
    """Samples the RSS of one PID, or the sum over several (the replicas behind a balancer), every
    `interval` seconds in the background: [(t, bytes)]. A PID that has exited counts as nothing
    (a replica killed on purpose); a sample of PIDs all gone is not recorded."""

    def __init__(self, pids: int | list[int] | None, interval: float = 1.0) -> None:
        self.pids = [] if pids is None else [pids] if isinstance(pids, int) else list(pids)
        self.pid = self.pids[0] if self.pids else None
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self.t0 = time.monotonic()
        self._task: asyncio.Task[None] | None = None

    def sample(self) -> int | None:
        if not self.pids:
            return None
        each = [rss_bytes(pid) for pid in self.pids]
        if all(b is None for b in each):
            return None
        rss = sum(b for b in each if b is not None)
        self.samples.append((time.monotonic() - self.t0, rss))
        return rss

    async def _loop(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(self.interval)

    def start(self) -> None:
        if self.pids and self._task is None:
            self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    def between(self, t_from: float, t_to: float) -> list[int]:
        return [b for t, b in self.samples if t_from <= t <= t_to]
