"""`python -m tools.cluster`: Redis, N app servers and HAProxy on loopback, until Ctrl-C or SIGTERM.

    python -m tools.cluster --replicas 3          # prints the balancer's URL, PIDs, ports, logs
    python -m tools.cluster --replicas 2 --no-redis

Then drive it through the balancer, e.g. with the load test command it prints.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from types import FrameType

from tools.cluster.cluster import LocalCluster


class StopRequestedError(Exception):
    """SIGTERM or SIGINT arrived: stop the cluster."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise StopRequestedError(signal.Signals(signum).name)


def describe(cluster: LocalCluster) -> str:
    """What was started, for the terminal: URL, PIDs and ports, logs, the load test's command."""
    lines = [f"balancer  {cluster.url}  (pid {cluster.balancer.pid}; cookie {cluster.cookie})"
             if cluster.balancer else "no balancer"]
    lines += [f"{m.name:<9} {m.url}  (pid {m.pid})" for m in cluster.members]
    if cluster.store and cluster.cache:
        lines.append(f"redis     127.0.0.1:{cluster.store.port}  (pid {cluster.store.pid}; rooms, limits, "
                     f"admission: noeviction)")
        lines.append(f"cache     127.0.0.1:{cluster.cache.port}  (pid {cluster.cache.pid}; results: "
                     f"allkeys-lru)")
        lines.append(f"password  {cluster.password_file}; URLs in {cluster.workdir / 'cluster.json'} "
                     f"(both mode 600)")
    else:
        lines.append("redis     not started (--no-redis): each replica keeps its results in-process")
    lines.append(f"logs      {cluster.workdir}")
    pids = " ".join(str(m.pid) for m in cluster.members)
    lines.append(f"load test python -m tools.loadtest --url {cluster.url} --via {cluster.cookie} "
                 f"--pid {pids}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.cluster", description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=3, help="app servers behind the balancer (1-16)")
    ap.add_argument("--no-redis", action="store_true", help="no shared store: ASE_REDIS_URL left unset")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds the servers may take to start")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    cluster = LocalCluster(replicas=args.replicas, redis=not args.no_redis, start_timeout=args.timeout)
    print(f"starting in {cluster.workdir} ...", flush=True)
    try:
        cluster.start()
        print(describe(cluster), "\nCtrl-C stops everything.", flush=True)
        reported: set[int] = set()
        while True:  # report a process that ended on its own; keep serving with the others
            for m in [cluster.store, cluster.cache, *cluster.members, cluster.balancer]:
                if m and m.proc and m.proc.poll() is not None and m.pid not in reported:
                    reported.add(m.pid)
                    print(f"{m.name} (pid {m.pid}) exited with {m.proc.returncode}; see {m.log}",
                          file=sys.stderr, flush=True)
            time.sleep(1)
    except StopRequestedError as why:
        print(f"{why}: stopping ...", flush=True)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt the clean-up
        killed = cluster.stop()
        if killed:
            print(f"needed SIGKILL: {killed}", file=sys.stderr)
    print("stopped; logs kept in", cluster.workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
