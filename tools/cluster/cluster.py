"""`LocalCluster`: two Redis servers, N app servers and HAProxy on loopback, started, watched and
stopped together.

What compose runs in containers (deploy/compose.yaml), as processes on this machine: two password-
protected Redis servers that save nothing (`redis`: rooms, rate limits and admission, `noeviction`;
`redis-cache`: results, `allkeys-lru`), `streamlit run app.py` N times with ASE_REDIS_URL and
ASE_REDIS_CACHE_URL pointing at them and the password in a file (ASE_REDIS_PASSWORD_FILE, mode 600:
on no command line and in no environment), trusting X-Forwarded-For from the balancer's loopback
address only (ASE_TRUSTED_PROXIES), and HAProxy configured from deploy/haproxy.cfg
(tools/cluster/haproxy_cfg.py). Nothing listens anywhere but 127.0.0.1; every process runs in its
own process group and is stopped with it.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.cluster.haproxy_cfg import HAPROXY, SOURCE, Server, check, cookie_name, runtime_cfg
from tools.cluster.processes import free_port, http_ok, signal_group, spawn, stop_all, wait_until

ROOT = Path(__file__).resolve().parents[2]
REDIS_SERVER = Path("/usr/bin/redis-server")
REDIS_MAXMEMORY = "64mb"          # rooms, rate limits, admission: nothing evicted (noeviction)
REDIS_CACHE_MAXMEMORY = "128mb"   # results: the least recently used out first (allkeys-lru)
BALANCER_ADDRESS = "127.0.0.1/32"  # the only peer whose X-Forwarded-For the replicas believe
REPLICA_ENV = ("ASE_REDIS_URL", "ASE_REDIS_CACHE_URL", "ASE_REDIS_PASSWORD_FILE", "ASE_TRUSTED_PROXIES")


@dataclass
class Member:
    """One process of the cluster: what it is, where it listens, its log."""

    name: str
    port: int
    log: Path
    proc: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class LocalCluster:
    """`replicas` app servers behind HAProxy, with Redis unless `redis` is False. `start()` returns
    once every replica answers its health check directly and through the balancer; `stop()` ends
    every process group. Use as a context manager."""

    replicas: int = 3
    redis: bool = True
    workdir: Path | None = None
    start_timeout: float = 180.0
    app_args: tuple[str, ...] = ()
    members: list[Member] = field(default_factory=list)
    balancer: Member | None = None
    store: Member | None = None   # the rooms' Redis
    cache: Member | None = None   # the results' Redis
    redis_url: str | None = None  # each with its password, for scripts (cluster.json, mode 600)
    cache_url: str | None = None
    cookie: str = ""

    def __post_init__(self) -> None:
        if not 1 <= self.replicas <= 16:
            raise ValueError("replicas must lie in [1, 16]")
        self.workdir = Path(self.workdir or tempfile.mkdtemp(prefix="ase-cluster-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.cookie = cookie_name(SOURCE.read_text())

    # ------------------------------------------------------------------ start

    def start(self) -> LocalCluster:
        try:
            if self.redis:
                self._start_redis()
            self._start_replicas()
            self.balancer = Member("balancer", free_port(), self.workdir / "haproxy.log")
            self._start_balancer()
        except BaseException:
            self.stop()
            raise
        self._write_state()
        return self

    def _start_redis(self) -> None:
        """Two Redis servers on free loopback ports with one random password, nothing saved, memory
        bounded. Their settings, and the password the replicas read, are in files only this user
        may read, so the password is on no command line and in no environment."""
        password = secrets.token_hex(24)
        self.password_file.touch(mode=0o600)
        self.password_file.write_text(password + "\n")
        self.store = self._start_one_redis("redis", password, REDIS_MAXMEMORY, "noeviction")
        self.cache = self._start_one_redis("redis-cache", password, REDIS_CACHE_MAXMEMORY, "allkeys-lru")
        self.redis_url = f"redis://:{password}@127.0.0.1:{self.store.port}/0"
        self.cache_url = f"redis://:{password}@127.0.0.1:{self.cache.port}/0"
        for member in (self.store, self.cache):
            wait_until(member.name, lambda m=member: self.redis_ping(m), [member.proc], 30, [member.log])

    def _start_one_redis(self, name: str, password: str, maxmemory: str, policy: str) -> Member:
        assert self.workdir is not None
        port = free_port()
        conf = self.workdir / f"{name}.conf"
        conf.touch(mode=0o600)
        conf.write_text("\n".join([
            "bind 127.0.0.1", f"port {port}", "protected-mode yes", f"requirepass {password}",
            'save ""', "appendonly no", f"maxmemory {maxmemory}", f"maxmemory-policy {policy}",
            f"dir {self.workdir}", f"dbfilename {name}.rdb", "daemonize no", ""]))
        member = Member(name, port, self.workdir / f"{name}.log")
        member.proc = spawn([str(REDIS_SERVER), str(conf)], member.log, ROOT)
        return member

    @property
    def password_file(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "redis-password"

    def redis_ping(self, member: Member | None = None) -> bool:
        """Whether a Redis (default: the rooms') answers PING once authenticated (its own protocol,
        no client library)."""
        member = member or self.store
        if member is None or not self.password_file.exists():
            return False
        password = self.password_file.read_text().strip()
        try:
            with socket.create_connection(("127.0.0.1", member.port), timeout=2) as s:
                s.sendall(f"AUTH {password}\r\nPING\r\n".encode())
                reply = b""
                while reply.count(b"\r\n") < 2:
                    chunk = s.recv(256)
                    if not chunk:
                        break
                    reply += chunk
        except OSError:
            return False
        return reply.startswith(b"+OK\r\n+PONG")

    def _replica_env(self) -> dict[str, str]:
        """This environment, with the stores' addresses (no password: that is in the file) and the
        balancer's address as the only trusted one."""
        env = {k: v for k, v in os.environ.items() if k not in REPLICA_ENV}
        env["ASE_TRUSTED_PROXIES"] = BALANCER_ADDRESS
        if self.store and self.cache:
            env["ASE_REDIS_URL"] = f"redis://127.0.0.1:{self.store.port}/0"
            env["ASE_REDIS_CACHE_URL"] = f"redis://127.0.0.1:{self.cache.port}/0"
            env["ASE_REDIS_PASSWORD_FILE"] = str(self.password_file)
        return env

    def _start_replica(self, member: Member) -> None:
        member.proc = spawn(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(member.port),
             "--browser.gatherUsageStats", "false", *self.app_args],
            member.log, ROOT, self._replica_env())

    def _start_replicas(self) -> None:
        self.members = [Member(f"app{i}", free_port(), self.workdir / f"app{i}.log")
                        for i in range(1, self.replicas + 1)]
        for m in self.members:
            self._start_replica(m)
        procs = [m.proc for m in self.members if m.proc]
        wait_until("an app server", lambda: all(http_ok(f"{m.url}/_stcore/health") for m in self.members),
                   procs, self.start_timeout, [m.log for m in self.members])

    def _start_balancer(self) -> None:
        assert self.balancer is not None
        cfg = self.workdir / "haproxy.cfg"
        servers = [Server(m.name, m.port) for m in self.members]
        cfg.write_text(runtime_cfg(SOURCE.read_text(), self.balancer.port, servers, self.stats_socket))
        check(cfg)
        self.balancer.proc = spawn([str(HAPROXY), "-db", "-f", str(cfg)], self.balancer.log, ROOT)
        wait_until("haproxy", lambda: self.all_up() and http_ok(f"{self.url}/_stcore/health"),
                   [self.balancer.proc], 60, [self.balancer.log])

    # ------------------------------------------------------------------ what it is

    @property
    def url(self) -> str:
        """The balancer's base URL: where a browser (or the load test) goes."""
        if self.balancer is None:
            raise RuntimeError("the cluster has not started")
        return self.balancer.url

    @property
    def stats_socket(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "haproxy.sock"

    def member(self, name: str) -> Member:
        for m in self.members:
            if m.name == name:
                return m
        raise KeyError(name)

    def server_status(self) -> dict[str, str]:
        """The balancer's view of each replica ("UP", "DOWN", …), from its stats socket."""
        rows = self.stats()
        return {r["svname"]: r["status"] for r in rows if r["svname"] in {m.name for m in self.members}}

    def stats(self) -> list[dict[str, str]]:
        """HAProxy's `show stat` as rows of named fields (scur: current sessions per server)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.stats_socket))
            s.sendall(b"show stat\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        lines = data.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        return [dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line]

    def all_up(self) -> bool:
        try:
            status = self.server_status()
        except OSError:
            return False  # the socket is not there yet
        return len(status) == len(self.members) and all(v.startswith("UP") for v in status.values())

    # ------------------------------------------------------------------ faults

    def kill_replica(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Send `sig` to a replica's process group (SIGKILL: a crash, nothing cleaned up)."""
        member = self.member(name)
        if member.proc is None or not signal_group(member.proc, sig):
            raise RuntimeError(f"{name} is not running")
        member.proc.wait(timeout=30)

    def restart_replica(self, name: str) -> None:
        """Start a stopped replica again on its port and wait until the balancer has it UP."""
        member = self.member(name)
        self._start_replica(member)
        assert member.proc is not None
        wait_until(name, lambda: http_ok(f"{member.url}/_stcore/health") and self.all_up(), [member.proc],
                   self.start_timeout, [member.log])

    def restart_balancer(self, down_for: float = 0.0) -> None:
        """Stop HAProxy (every connection through it drops), wait `down_for` seconds, start it again
        on the same port with the same configuration."""
        assert self.balancer is not None and self.balancer.proc is not None
        stop_all([self.balancer.proc])
        time.sleep(down_for)
        self._start_balancer()
        self._write_state()

    # ------------------------------------------------------------------ stop

    def pids(self) -> list[int]:
        """Every PID of the cluster: the Redis servers, the replicas, the balancer (those started)."""
        return [m.pid for m in self._all() if m.pid is not None]

    def _all(self) -> list[Member]:
        return [m for m in (self.store, self.cache, *self.members, self.balancer) if m is not None]

    def stop(self) -> list[int]:
        """Stop the balancer, then the replicas and the Redis servers (their groups); PIDs that needed
        SIGKILL."""
        procs = [m.proc for m in reversed(self._all()) if m.proc is not None]
        return stop_all(procs)

    def _write_state(self) -> None:
        """cluster.json in the work directory (mode 600: it holds the Redis URLs with their password):
        what scripts need to drive the cluster."""
        state = {"url": self.url, "cookie": self.cookie, "redis_url": self.redis_url,
                 "cache_url": self.cache_url,
                 "balancer": {"pid": self.balancer.pid if self.balancer else None,
                              "port": self.balancer.port if self.balancer else None},
                 "replicas": [{"name": m.name, "pid": m.pid, "port": m.port} for m in self.members]}
        path = self.workdir / "cluster.json"
        path.touch(mode=0o600)
        path.write_text(json.dumps(state, indent=1))

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
