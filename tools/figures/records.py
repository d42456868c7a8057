"""One measured figure as a record in docs/figures/<name>.json (see tools/figures/__init__.py).

`write(name, tool, command, values)` stamps the record with the commit the working tree is at (and
`dirty` when tracked files differ from it), the UTC date, and the machine: the reference workload's
milliseconds (tools/loadtest/machine.py), the load average before and the CPU count. `load(name)`
reads one back; `load_all()` every record, by name. Names are lowercase words, digits and hyphens.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "docs" / "figures"
NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
FIELDS = ("name", "tool", "command", "commit", "dirty", "date", "machine", "values")
BULKY = ("timeline", "runs", "samples")  # per-run lists a tool prints with --json: kept out of a record


@dataclass
class Record:
    name: str
    tool: str
    command: str
    commit: str
    dirty: bool
    date: str
    machine: dict[str, Any]
    values: Any
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def head_commit() -> tuple[str, bool]:
    """(HEAD's hash, whether tracked files differ from it)."""
    commit = git("rev-parse", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return commit, dirty


def machine(reference: float | None = None) -> dict[str, Any]:
    """The machine a figure was measured on: the reference workload's ms (timed now unless given),
    the one-minute load average and the CPUs this process may use."""
    from tools.loadtest.machine import load_average, reference_ms

    load = load_average()
    return {"reference_ms": round(reference if reference is not None else reference_ms(), 1),
            "load_before": None if load is None else round(load, 2),
            "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()}


def pruned(value: Any) -> Any:
    """`value` without the bulky per-run lists (BULKY keys, at any depth)."""
    if isinstance(value, dict):
        return {k: pruned(v) for k, v in value.items() if k not in BULKY}
    if isinstance(value, list):
        return [pruned(v) for v in value]
    return value


def path_of(name: str) -> Path:
    if not NAME_RE.fullmatch(name):
        raise ValueError(f"not a record name: {name!r} (lowercase words, digits and hyphens)")
    return FIGURES / f"{name}.json"


def write(name: str, tool: str, command: str, values: Any, machine_doc: dict[str, Any] | None = None,
          note: str = "") -> Path:
    """Write the record `name` (replacing the last one of that name); its path."""
    commit, dirty = head_commit()
    rec = Record(name, tool, command, commit, dirty,
                 dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
                 machine_doc if machine_doc is not None else machine(), pruned(values), note)
    path = path_of(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {k: v for k, v in asdict(rec).items() if k != "extra" and (k != "note" or v)}
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=True, default=float) + "\n",
                    encoding="utf-8")
    return path


def load(name: str) -> Record:
    doc = json.loads(path_of(name).read_text(encoding="utf-8"))
    missing = [f for f in FIELDS if f not in doc]
    if missing:
        raise ValueError(f"{name}: a record without {', '.join(missing)}")
    return Record(**{k: doc[k] for k in (*FIELDS, "note") if k in doc})


def load_all() -> dict[str, Record]:
    return {p.stem: load(p.stem) for p in sorted(FIGURES.glob("*.json"))}
