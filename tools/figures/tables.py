"""The docs' tables, rendered from the records (tools/figures/records.py).

A table sits in README.md or a file of docs/ between `<!-- figures: NAME -->` and `<!-- /figures -->`;
`render_all()` replaces what is between with `TABLES[NAME](records)`: the rows, then one line naming
the records they come from (commit, date, the machine's reference workload). A table whose records
are missing renders as a line saying which are missing, so a test fails rather than a figure staying.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tools.figures.records import ROOT, Record, load_all

MARK_RE = re.compile(r"(<!-- figures: ([a-z0-9-]+) -->\n)(.*?)(<!-- /figures -->)", re.S)
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))


# ---------------------------------------------------------------- formatting


def num(x: Any, digits: int = 2, unit: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:,.{digits}f}{unit}"


def pct(x: Any, digits: int = 1) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f} %"


def mb(x: Any) -> str:
    return "—" if not x else f"{x / 1e6:,.0f} MB"


def table(head: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def sources(recs: Iterable[Record]) -> str:
    parts = [f"`{r.name}` ({r.commit[:7]}{'+' if r.dirty else ''}, {r.date[:10]}, reference "
             f"{num(r.machine.get('reference_ms'), 1)} ms)" for r in recs]
    return "Records: " + "; ".join(parts) + "."


def pick(records: dict[str, Record], prefix: str) -> list[Record]:
    return [r for name, r in sorted(records.items()) if name.startswith(prefix)]


# ---------------------------------------------------------------- the live class


def _class_row(r: Record) -> list[str]:
    v = r.values
    c, light = v["class"], v["phases"][0]["light"]
    reps = len(c.get("replicas") or {}) or 1
    return [f"{reps} × {c['students']}", str(v.get("seed", "—")), pct(c["within_2s"]),
            num(c["arrival_p95"], 2, " s"), num(c["arrival_max"], 2, " s"), num(c["count_lag_p95"], 2, " s"),
            num(light["p95"], 2, " s"), mb(v["memory"]["peak"]),
            f"{c['exceptions']} / {c['missed']}", num(r.machine.get("reference_ms"), 1)]


CLASS_HEAD = ["replicas × phones", "seed", "phones within 2 s of the click", "p95", "slowest",
              "projector's count lag p95", "30 other sessions' light p95", "RSS peak (all replicas)",
              "exceptions / moves missed", "reference ms"]


def class_runs(records: dict[str, Record]) -> str:
    runs = pick(records, "class-r")  # class-r<replicas>-p<phones>-s<seed>
    return table(CLASS_HEAD, (_class_row(r) for r in runs)) + "\n\n" + sources(runs)


def _median(xs: list[float]) -> float | None:
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else None


def _p95(xs: list[float]) -> float | None:
    xs = sorted(x for x in xs if x is not None)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))] if xs else None


def move_breakdown(records: dict[str, Record]) -> str:
    """Where a move's time goes, from the largest class run that has the replicas' own timings
    (`servers`: the room bus's waves and each replica's CPU, tools/loadtest --replicas)."""
    runs = [r for r in pick(records, "class-r") if r.values.get("servers")]
    if not runs:
        return "*No class run with the replicas' timings yet: `python -m tools.loadtest --replicas 2 …`.*"
    r = max(runs, key=lambda x: (x.values["class"]["students"], x.name))
    c, rows = r.values["class"], []
    for name, srv in sorted(r.values["servers"].items()):
        waves = [w for w in (srv.get("bus") or {}).get("waves", []) if w.get("listeners", 0) > 1]
        cpu = [x for w in waves for x in w.get("run_cpu_ms", [])]
        per = [w["last_drawn_s"] / w["listeners"] for w in waves if w.get("last_drawn_s")]
        rows.append([name, str(round(sum(w["listeners"] for w in waves) / max(1, len(waves)))),
                     num(_median([w["arrived_s"] for w in waves]), 3, " s"),
                     num(_median([w["hold_s"] for w in waves]), 2, " s"),
                     f"{num(_median([w['woken_s'] for w in waves]), 2, ' s')} / "
                     f"{num(_p95([w['woken_s'] for w in waves]), 2, ' s')}",
                     f"{num(_median([w['last_drawn_s'] for w in waves]), 2, ' s')} / "
                     f"{num(_p95([w['last_drawn_s'] for w in waves]), 2, ' s')}",
                     num(1000 * (_median(per) or float("nan")), 1, " ms"),
                     f"{num(_median(cpu), 1, ' ms')} / {num(_p95(cpu), 1, ' ms')}",
                     pct(srv["event_loop_cpu_s"] / srv["cpu_s"] if srv.get("cpu_s") else None, 0)])
    head = ["replica", "phones woken per move", "the change's arrival (Redis pub/sub), median",
            "the teacher's run first (hold), median", "wake schedule: first to last wake, median / p95",
            "the wave: the change to its last phone drawn, median / p95", "per phone (wave ÷ phones)",
            "a woken phone's run, CPU median / p95", "the event loop's share of the CPU (websocket sends)"]
    after = (f"The teacher's own run (the projector shows the move) p50 {num(c['projector_p50'], 2, ' s')}; "
             f"the projector's 1-s poll: its count p95 {num(c['count_lag_p95'], 2, ' s')} after an answer; "
             f"answers arriving within 2 s of a question's change: {c.get('answers_in_waves', '—')} of "
             f"{c['answers']}.")
    return table(head, rows) + "\n\n" + after + "\n\n" + sources([r])


def as_recorded(name: str) -> Callable[[dict[str, Record]], str]:
    """A record as it is: one that holds its own table (`values`: {"head": [...], "rows": [[...], ...]}:
    what a tool measured in several runs and wrote out as rows, or figures carried over, each row
    naming the command and commit that measured it); a command's wall time (`record --text`); or a
    test's timings ({what: seconds}, `record --json-file`)."""

    def build(records: dict[str, Record]) -> str:
        r = records[name]
        v = r.values
        if "head" in v:
            body = table(list(v["head"]), ([str(c) for c in row] for row in v["rows"]))
        elif "seconds" in v and "tail" in v:  # `record --text`: a command's wall time and last line
            body = table(["command", "wall time", "exit status", "its last line"],
                         [[f"`{r.command}`", num(v["seconds"], 0, " s"), str(v["exit"]),
                           (v["tail"] or [""])[-1].strip("= ")]])
        else:  # {what: seconds}: a test's timings
            body = table(["what", "seconds"], ([k.replace("_", " "), num(x, 2, " s")] for k, x in v.items()))
        return body + "\n\n" + sources([r]) + (f" {r.note}" if r.note else "")

    return build


def class_capacity(records: dict[str, Record]) -> str:
    """Phones per replica at which 95 % of the phones still show a move within 2 s of the click,
    from the class runs (class-r<replicas>-p<phones>-s<seed>): measured for the replica counts run
    here (the worst seed of each size decides), and on paper for 4 and 8 replicas at that many phones
    each — a replica with a core of its own wakes only its own phones, so the phones it holds, not
    the class's size, set its wave's length (docs/live-class.md, "Where a move's time goes")."""
    runs = pick(records, "class-r")
    sizes: dict[tuple[int, int], float] = {}
    for r in runs:
        c = r.values["class"]
        key = (len(c.get("replicas") or {}) or 1, c["students"])
        sizes[key] = min(sizes.get(key, 1.0), c["within_2s"])
    rows, held = [], {}
    for reps in sorted({k[0] for k in sizes}):
        tried = sorted((n, w) for (k, n), w in sizes.items() if k == reps)
        ok = [n for n, w in tried if w >= 0.95]
        held[reps] = max(ok) / reps if ok else None
        rows.append([str(reps), "measured", ", ".join(f"{n} → {pct(w, 0)}" for n, w in tried),
                     num(held[reps], 0) if held[reps] else "fewer than the smallest run",
                     str(round(held[reps] * reps)) if held[reps] else "—"])
    per = min((v for v in held.values() if v), default=None)
    for reps in (4, 8):
        if per and reps not in held:
            rows.append([str(reps), "on paper", "—", num(per, 0), str(round(per * reps))])
    course = (f" A course of 600 phones in one class: {math.ceil(600 / per)} replicas, one core each."
              if per else "")
    peaks: dict[tuple[int, int], list[float]] = {}
    for r in runs:
        c = r.values["class"]
        key = (len(c.get("replicas") or {}) or 1, c["students"])
        peaks.setdefault(key, []).append(r.values["memory"]["peak"])
    for reps in sorted({k[0] for k in peaks}):
        ns = sorted(n for k, n in peaks if k == reps)
        if len(ns) > 1 and ns[-1] > ns[0]:
            lo, hi = _median(peaks[(reps, ns[0])]), _median(peaks[(reps, ns[-1])])
            course += (f" A phone's session costs about {num((hi - lo) / (ns[-1] - ns[0]) / 1e6, 2)} MB: the"
                       f" median RSS peak of all {reps} replicas at {ns[-1]} phones less that at {ns[0]},"
                       f" over the {ns[-1] - ns[0]} phones between (the same 30 other sessions in both).")
    return table(["replicas (a core each)", "how known", "phones tried → share within 2 s (worst seed)",
                  "phones per replica that hold 95 % within 2 s", "a class of at most"], rows) + \
        "\n\n" + sources(runs) + course


VARIANTS = {"baseline": "÷√d_k", "qk-norm": "+ QK-layernorm", "soft-cap": "+ soft-cap", "z-loss": "+ z-loss",
            "sigma-reparam": "+ σReparam"}


def stability_sweep(records: dict[str, Record]) -> str:
    """The learning-rate sweep's time per curve (`python -m core stability --json`: its
    params.variants_summary), wall and this thread's CPU seconds."""
    r = records["stability-sweep"]
    p = r.values["params"]
    curves = p["variants_summary"]
    rows = [[VARIANTS.get(v["variant"], v["variant"]), num(v["seconds"], 1, " s"),
             num(v["cpu_seconds"], 1, " s")] for v in curves]
    rows.append([f"whole sweep ({len(p['variants'])} × {len(p['lrs'])} runs × {p['steps']} steps)",
                 num(p["seconds_total"], 1, " s"), num(sum(v["cpu_seconds"] for v in curves), 1, " s")])
    load = r.machine.get("load_before")
    return table(["curve", "wall", "CPU"], rows) + "\n\n" + sources([r]) + \
        (f" Load average before: {load}." if load is not None else "")


def _pair(x: Any, y: Any) -> str:
    return "—" if x is None or y is None else f"{x:.2f} / {y:.2f}"


def page_timing_now(records: dict[str, Record]) -> str:
    """The pages of `page-timing-summary` timed again (`page-timing-56`, tools.page_timing --json):
    desktop / phone seconds, each beside the summary's, and Streamlit's own floor in the same run."""
    old, new = records["page-timing-summary"], records["page-timing-56"]
    by = {(row["page"], row["viewport"]): row for row in new.values["rows"]}

    def two(page: str, key: str) -> str:
        d, ph = by.get((page, "desktop"), {}), by.get((page, "phone"), {})
        return _pair(d.get(key), ph.get(key))

    rows = []
    for page, cold, tab, rerun in old.values["rows"]:
        if (page, "desktop") not in by:
            continue
        rows.append([page, cold, two(page, "cold_s"), tab, two(page, "warm_median_s"),
                     rerun, "—" if page.startswith("floor") else two(page, "rerun_median_s")])
    load = new.values.get("load_average_1min") or {}
    return table(["page", "cold, then", "cold, now", "new tab, then", "new tab, now", "rerun, then",
                  "rerun, now"], rows) + "\n\n" + sources([old, new]) + \
        f" Load average during the new run: {load.get('min')}–{load.get('max')}."


TABLES: dict[str, Callable[[dict[str, Record]], str]] = {
    "class-runs": class_runs,
    "move-breakdown": move_breakdown,
    "stability-sweep": stability_sweep,
    "class-capacity": class_capacity,
    "page-timing-now": page_timing_now,
}


# ---------------------------------------------------------------- rendering


def render_text(text: str, records: dict[str, Record]) -> tuple[str, list[str]]:
    """`text` with every table rendered anew; the names of the tables that changed."""
    changed: list[str] = []

    def one(m: re.Match[str]) -> str:
        name = m.group(2)
        build = TABLES.get(name) or (as_recorded(name) if name in records else None)
        try:
            body = build(records) if build else f"*No table or record named `{name}` (tools/figures).*"
        except (KeyError, IndexError, TypeError) as exc:
            body = f"*Table `{name}` cannot be rendered: {type(exc).__name__}: {exc}.*"
        new = f"{m.group(1)}{body}\n{m.group(4)}"
        if new != m.group(0):
            changed.append(name)
        return new

    return MARK_RE.sub(one, text), changed


def render_all(write: bool = True, docs: Iterable[Path] = DOCS) -> list[str]:
    """Render every table in `docs`; the `file:table` names that differed (and were rewritten when
    `write`)."""
    records = load_all()
    stale: list[str] = []
    for path in docs:
        text = path.read_text(encoding="utf-8")
        new, changed = render_text(text, records)
        stale += [f"{path.relative_to(ROOT)}:{name}" for name in changed]
        if write and new != text:
            path.write_text(new, encoding="utf-8")
    return stale
