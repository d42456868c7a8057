"""Child processes of the local cluster: each in its own process group, stopped with its group.

Every child starts a new session (its own process group, so a signal reaches whatever it starts
too) and, through util-linux's `setpriv --pdeathsig TERM`, asks Linux to send it SIGTERM once the
thread that started it is gone: a cluster killed without a chance to clean up (SIGKILL) leaves no
server behind. `spawn` returns only once setpriv has made that request and run the command (a parent
killed before it would leave the child orphaned for good). Where setpriv is missing, only that last
guarantee is lost (`stop_all` still ends every group).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

SETPRIV = Path("/usr/bin/setpriv")
DIE_WITH_PARENT = [str(SETPRIV), "--pdeathsig", "TERM"] if SETPRIV.exists() else []


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(cmd: Sequence[str], log: Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start `cmd` in its own process group, stdout and stderr appended to `log`."""
    with open(log, "ab") as out:
        proc = subprocess.Popen([*DIE_WITH_PARENT, *cmd], cwd=cwd, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    if DIE_WITH_PARENT:
        _wait_past_setpriv(proc)
    return proc


def _wait_past_setpriv(proc: subprocess.Popen, timeout: float = 5.0) -> None:
    """Wait until `proc` is no longer setpriv itself: setpriv asks for the death signal before it
    executes the command, so from then on the child dies with this process."""
    exe = Path(f"/proc/{proc.pid}/exe")
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if Path(os.readlink(exe)) != SETPRIV:
                return
        except OSError:  # gone, or not ours to read: nothing to wait for
            return
        time.sleep(0.001)


def signal_group(proc: subprocess.Popen, sig: int) -> bool:
    """Send `sig` to `proc`'s process group; False when the group is already gone."""
    if proc.poll() is not None:
        return False
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:  # exited between poll() and killpg(): nothing left to signal
        return False
    return True


def stop_all(procs: Sequence[subprocess.Popen], grace: float = 15.0) -> list[int]:
    """SIGTERM every group at once, wait up to `grace` seconds, SIGKILL what is left; the PIDs that
    needed SIGKILL."""
    for proc in procs:
        signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace
    killed = []
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            killed.append(proc.pid)
            signal_group(proc, signal.SIGKILL)
            proc.wait()
    # a SIGKILL is delivered to the group's other members when each is next scheduled: on a busy
    # machine one may still be alive just after its leader has been reaped
    deadline = time.monotonic() + 5.0
    while killed and any(group_members(pid) for pid in killed) and time.monotonic() < deadline:
        time.sleep(0.05)
    return killed


def http_ok(url: str, timeout: float = 2.0) -> bool:
    """Whether GET `url` answers 200 with the body "ok" (Streamlit's health endpoint)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200 and r.read().strip() == b"ok"
    except (urllib.error.URLError, OSError):
        return False


def wait_until(what: str, ready: Callable[[], bool], procs: Sequence[subprocess.Popen], timeout: float,
               logs: Sequence[Path]) -> None:
    """Poll `ready()` until it holds; RuntimeError naming `what` and the logs when a process of
    `procs` exits first or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while not ready():
        dead = [p.pid for p in procs if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            why = f"exited (PIDs {dead})" if dead else f"not ready after {timeout:.0f} s"
            raise RuntimeError(f"{what} {why}; see {', '.join(str(x) for x in logs)}")
        time.sleep(0.25)


def listening_addresses(pids: Sequence[int]) -> list[tuple[int, str, int]]:
    """(pid, address, port) of every TCP socket the processes `pids` listen on (Linux /proc)."""
    inodes: dict[str, tuple[str, int]] = {}
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] != "0A":  # LISTEN
                continue
            addr, port = cols[1].rsplit(":", 1)
            inodes[cols[9]] = (_address(addr), int(port, 16))
    out = []
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue  # the process is gone
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue  # the descriptor closed while we looked
            if target.startswith("socket:[") and target[8:-1] in inodes:
                out.append((pid, *inodes[target[8:-1]]))
    return out


def _address(hex_addr: str) -> str:
    """/proc/net/tcp's address ("0100007F") as text ("127.0.0.1"); IPv6 as its 32 hex digits' form."""
    raw = bytes.fromhex(hex_addr)
    if len(raw) == 4:
        return socket.inet_ntop(socket.AF_INET, raw[::-1])
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
    return socket.inet_ntop(socket.AF_INET6, words)


def group_members(pgid: int) -> list[int]:
    """Live PIDs whose process group is `pgid` (to check that a stopped group left nothing behind);
    a zombie has exited and is not counted."""
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited while we looked
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(proc.name))
    return out
