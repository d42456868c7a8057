"""Measured figures as data (docs/figures/README.md).

Every figure README.md and docs/ quote comes from a record in docs/figures/: one JSON file per
measurement, written by the tool that measured it — what was run (`command`), on which code
(`commit`, and whether the working tree differed from it), when (`date`, UTC), on how much machine
(`machine`: the reference workload's milliseconds, the load average before, the CPUs) and the
tool's own output (`values`). `records.write()` writes one; `python -m tools.figures record NAME --
CMD …` runs a command that prints JSON and records that; `python -m tools.figures render` rewrites
every table between `<!-- figures: TABLE -->` and `<!-- /figures -->` in README.md and docs/*.md from
the records (tables.py), and `--check` says whether any differs, as tests/test_figures.py does.
A record replaced by a newer one lives on in git's history, not in prose.
"""
