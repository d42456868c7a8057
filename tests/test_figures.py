"""Measured figures as data (tools/figures, docs/figures/): every table between figure markers in
README.md and docs/ is what its records render to; every record names a commit this checkout holds
(an ancestor of HEAD) and carries what a reader needs to reproduce it; and the prose around the
tables keeps no diary: no dates, times of day or commit hashes outside the rendered tables."""

from __future__ import annotations

import re
import subprocess

import pytest

from tools.figures import records, tables
from tools.figures.records import ROOT, Record

DIARY = [re.compile(p, re.I) for p in (
    r"\b(this|that|the|last|one|a) (afternoon|morning|evening|night)\b", r"\bthe night before\b",
    r"\byesterday\b", r"\btonight\b", r"\bearlier today\b", r"\b20\d\d-\d\d-\d\d\b",
    r"\(\s*[0-9a-f]{7}\s*[,)]", r"\bcommits? `?[0-9a-f]{7,40}\b", r"`[0-9a-f]{7,40}`")]


def test_every_table_is_what_its_records_render_to():
    stale = tables.render_all(write=False)
    assert not stale, f"run `python -m tools.figures render`: {stale}"


def test_every_record_names_a_commit_of_this_history_and_how_it_was_measured():
    found = records.load_all()
    assert found, "no records in docs/figures"
    for name, rec in found.items():
        assert rec.command and rec.tool and rec.values is not None, name
        assert re.fullmatch(r"[0-9a-f]{40}", rec.commit), name
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rec.date), name
        assert rec.machine.get("reference_ms") or rec.note, f"{name}: no machine reference and no note why"
        ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", rec.commit, "HEAD"], cwd=ROOT,
                                  capture_output=True, check=False)
        assert ancestor.returncode == 0, f"{name}: {rec.commit[:10]} is not an ancestor of HEAD"


def test_every_marker_names_a_table_or_a_record_and_every_table_is_used():
    found = records.load_all()
    used = set()
    for path in tables.DOCS:
        for m in tables.MARK_RE.finditer(path.read_text(encoding="utf-8")):
            name = m.group(2)
            assert name in tables.TABLES or name in found, f"{path.name}: no table or record {name!r}"
            used.add(name)
    assert set(tables.TABLES) <= used, f"tables no document shows: {set(tables.TABLES) - used}"


@pytest.mark.parametrize("path", tables.DOCS, ids=lambda p: p.name)
def test_the_prose_keeps_no_diary(path):
    text = tables.MARK_RE.sub("", path.read_text(encoding="utf-8"))  # rendered tables name their records
    hits = [(p.pattern, m.group(0)) for p in DIARY for m in p.finditer(text)]
    assert not hits, f"{path.name}: dated narrative (history lives in git and the records): {hits[:8]}"


def test_a_table_renders_from_a_record_and_a_missing_one_says_so():
    rec = Record("demo-table", "tools.demo", "python -m tools.demo --json", "0" * 40, False,
                 "2026-01-01T00:00:00Z", {"reference_ms": 12.0}, {"head": ["a", "b"], "rows": [[1, "x"]]})
    text = "before\n<!-- figures: demo-table -->\nold\n<!-- /figures -->\nafter\n"
    new, changed = tables.render_text(text, {"demo-table": rec})
    assert changed == ["demo-table"] and "| a | b |" in new and "| 1 | x |" in new and "`demo-table`" in new
    again, changed = tables.render_text(new, {"demo-table": rec})
    assert again == new and changed == []
    gone, _ = tables.render_text(text, {})
    assert "No table or record named `demo-table`" in gone
