"""Figures from recorded runs: per-page p50/p95, faults, capacity and memory, as tables or JSON."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from tools.loadtest.driver import PhaseRecord, Run

MB = 1e6


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) with linear interpolation between order statistics; NaN if empty."""
    xs = sorted(values)
    if not xs:
        return math.nan
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _times(runs: Iterable[Run]) -> list[float]:
    return [r.result.seconds for r in runs if r.result.status == "ok"]


def summarise(rec: PhaseRecord) -> dict[str, Any]:
    """The phase's figures: overall, light vs heavy, per page; faults; runs per second; RSS."""
    runs = rec.runs
    light = [r for r in runs if not r.heavy]
    heavy = [r for r in runs if r.heavy]
    pages: dict[str, dict[str, Any]] = {}
    for page in sorted({r.page for r in runs}):
        mine = [r for r in runs if r.page == page]
        t = _times(mine)
        pages[page] = {"runs": len(mine), "p50": percentile(t, 50), "p95": percentile(t, 95),
                       "max": max(t, default=math.nan), "charts": sum(r.result.charts for r in mine)}
    exceptions = [e for r in runs for e in r.result.exceptions]
    ok = [r for r in runs if r.result.status == "ok"]
    return {
        "name": rec.phase.name, "sessions": rec.phase.sessions, "heavy_sessions": rec.phase.heavy,
        "think": list(rec.phase.think), "seconds": rec.elapsed, "runs": len(runs),
        "runs_ok": len(ok), "runs_per_s": len(ok) / rec.elapsed if rec.elapsed else math.nan,
        "light": {"runs": len(light), "p50": percentile(_times(light), 50),
                  "p95": percentile(_times(light), 95)},
        "heavy": {"runs": len(heavy), "p50": percentile(_times(heavy), 50),
                  "p95": percentile(_times(heavy), 95)},
        "first_render": {"p50": percentile(_times(r for r in runs if r.kind == "open"), 50),
                         "p95": percentile(_times(r for r in runs if r.kind == "open"), 95)},
        "pages": pages,
        "exceptions": len(exceptions), "exception_samples": sorted(set(exceptions))[:5],
        "page_not_found": sum(r.result.page_not_found for r in runs),
        "timeouts": sum(r.result.status == "timeout" for r in runs),
        "missing_refs": sum(r.result.missing_refs for r in runs),
        "disconnects": rec.disconnects, "reconnect_failures": rec.reconnect_failures,
        "charts": sum(r.result.charts for r in runs),
        "largest_message": max((r.result.largest for r in runs), default=0),
        "rss": rec.rss,
        "replicas": replica_spread(rec.replicas) if rec.phase.sticky else None,
    }


def replica_spread(pinned: dict[int, list[str]]) -> dict[str, Any]:
    """Sessions per replica (the replica each session was first pinned to, by the balancer's
    cookie), each one's deviation from an even share in %, and the sessions that changed replica
    (a replica gone, or stickiness broken)."""
    first = [names[0] for names in pinned.values() if names]
    counts = {name: first.count(name) for name in sorted(set(first))}
    even = len(first) / len(counts) if counts else math.nan
    return {"sessions": counts,
            "from_even_pct": {name: 100.0 * (n - even) / even for name, n in counts.items()},
            "moved": sum(len(names) > 1 for names in pinned.values()),
            "unpinned": sum(not names for names in pinned.values())}


def spread_line(spread: dict[str, Any]) -> str:
    """"sessions per replica: app1 30 (+0%), …; changed replica 0" for a table's footer."""
    parts = [f"{name} {n} ({spread['from_even_pct'][name]:+.0f}%)" for name, n in spread["sessions"].items()]
    return (f"sessions per replica: {', '.join(parts) or 'none'}; changed replica {spread['moved']}"
            + (f"; never connected {spread['unpinned']}" if spread["unpinned"] else ""))


def _s(x: float) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f} s"


def _mb(x: int | None) -> str:
    return "—" if x is None else f"{x / MB:,.0f} MB"


def phase_table(summary: dict[str, Any]) -> str:
    """Per-page table of one phase, then its totals."""
    lines = [f"### {summary['name']}: {summary['sessions']} sessions"
             + (f" + {summary['heavy_sessions']} heavy" if summary["heavy_sessions"] else "")
             + f", {summary['seconds']:.0f} s, think {summary['think'][0]:g}–{summary['think'][1]:g} s",
             "", "| page | runs | p50 | p95 | max | charts |", "|---|---|---|---|---|---|"]
    for page, p in summary["pages"].items():
        lines.append(f"| {page} | {p['runs']} | {_s(p['p50'])} | {_s(p['p95'])} | {_s(p['max'])} "
                     f"| {p['charts']} |")
    lines += ["", f"runs {summary['runs_ok']}/{summary['runs']} ok, {summary['runs_per_s']:.2f} runs/s; "
              f"exceptions {summary['exceptions']}, "
              f"disconnects {summary['disconnects']}, timeouts {summary['timeouts']}, "
              f"page not found {summary['page_not_found']}; "
              f"RSS before {_mb(summary['rss'].get('before'))}, peak {_mb(summary['rss'].get('peak'))}"]
    if summary.get("replicas"):
        lines.append(spread_line(summary["replicas"]))
    for e in summary["exception_samples"]:
        lines.append(f"  exception: {e}")
    return "\n".join(lines)


def matrix_table(summaries: list[dict[str, Any]]) -> str:
    """One row per phase: the figures the hosting targets are about."""
    lines = ["| phase | sessions | think | runs/s | light p50 | light p95 | heavy p50 | heavy p95 "
             "| exceptions | disconnects | timeouts | RSS peak |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        sessions = f"{s['sessions']}" + (f" + {s['heavy_sessions']} heavy" if s["heavy_sessions"] else "")
        lines.append(f"| {s['name']} | {sessions} | {s['think'][0]:g}–{s['think'][1]:g} s "
                     f"| {s['runs_per_s']:.2f} | {_s(s['light']['p50'])} | {_s(s['light']['p95'])} "
                     f"| {_s(s['heavy']['p50'])} | {_s(s['heavy']['p95'])} | {s['exceptions']} "
                     f"| {s['disconnects']} | {s['timeouts']} | {_mb(s['rss'].get('peak'))} |")
    return "\n".join(lines)


def memory_lines(memory: dict[str, Any]) -> str:
    keys = (("fresh", "at start"), ("warm_idle", "idle after every page was opened once"),
            ("peak", "peak over all phases"), ("closed", "when the last sessions closed"),
            ("after", "after the sessions closed"))
    what = f"RSS of {len(memory['pids'])} processes summed" if len(memory.get("pids") or ()) > 1 else "RSS"
    out = [f"- {what} {label}: {_mb(memory.get(key))}" for key, label in keys if key in memory]
    if memory.get("warm_idle") and memory.get("after"):
        out.append(f"- after / warm idle: {memory['after'] / memory['warm_idle']:.2f}")
    return "\n".join(out)
