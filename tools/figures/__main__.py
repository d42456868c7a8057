"""`python -m tools.figures`: measured figures as records, and the docs' tables rendered from them.

    python -m tools.figures record NAME -- python -m core bench --n 512 1024 --d 64 --json
    python -m tools.figures record NAME --text -- .venv/bin/python -m pytest -n 2 -m "not slow"
    python -m tools.figures record NAME --json-file tests/artifacts/x.json -- .venv/bin/python -m pytest …
    python -m tools.figures render            # rewrite README.md's and docs/*.md's tables
    python -m tools.figures render --check    # exit 1, naming them, when a table differs
    python -m tools.figures list              # every record: name, tool, commit, date

`record` runs the command after timing the machine's reference workload and writes its JSON output
(or, with --text, its wall seconds, exit status and last lines) as the record NAME; a command that
fails is not recorded (exit status 1). Tools that measure under load write their own records
(`python -m tools.loadtest … --record NAME`, `python -m tools.page_timing … --record NAME`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time

from tools.figures import records, tables


def _record(args: argparse.Namespace) -> int:
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        print("error: no command after --", file=sys.stderr)
        return 2
    machine = records.machine()
    began = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - began
    if args.text:
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
        values = {"seconds": round(seconds, 1), "exit": done.returncode, "tail": lines[-3:]}
    elif args.json_file:  # a command (a test) that writes its figures to a file rather than printing them
        if done.returncode != 0:
            print(f"error: the command exited {done.returncode}: nothing recorded\n{done.stdout[-2000:]}",
                  file=sys.stderr)
            return 1
        try:
            values = json.loads(open(args.json_file, encoding="utf-8").read())
        except (OSError, json.JSONDecodeError) as exc:
            print(f"error: {args.json_file} holds no JSON ({exc}): nothing recorded", file=sys.stderr)
            return 1
    else:
        if done.returncode != 0:
            print(f"error: the command exited {done.returncode}: nothing recorded\n{done.stderr[-2000:]}",
                  file=sys.stderr)
            return 1
        try:
            values = json.loads(done.stdout)
        except json.JSONDecodeError as exc:
            print(f"error: the command printed no JSON ({exc}): nothing recorded", file=sys.stderr)
            return 1
    tool = next((part for part in cmd if "." in part and not part.startswith("-")), cmd[0])
    path = records.write(args.name, tool, shlex.join(cmd), values, machine, note=args.note or "")
    print(f"recorded {path.relative_to(records.ROOT)}")
    return 0 if not args.text or done.returncode in (0,) else 1


def _render(args: argparse.Namespace) -> int:
    stale = tables.render_all(write=not args.check)
    if args.check and stale:
        print("tables that differ from their records: " + ", ".join(stale), file=sys.stderr)
        return 1
    if not args.check:
        print("rendered: " + (", ".join(stale) if stale else "nothing changed"))
    return 0


def _list(_: argparse.Namespace) -> int:
    for name, rec in records.load_all().items():
        print(f"{name:32} {rec.tool:24} {rec.commit[:10]}{'+' if rec.dirty else ' '} {rec.date}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.figures", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="verb", required=True)
    rec = sub.add_parser("record", help="run a command and record what it prints")
    rec.add_argument("name")
    rec.add_argument("--text", action="store_true", help="record wall time, exit status and last lines")
    rec.add_argument("--note", help="one line kept with the record")
    rec.add_argument("--json-file", metavar="PATH",
                     help="record the JSON the command wrote to PATH instead of its output")
    rec.add_argument("cmd", nargs="*", help="the command, after --")
    ren = sub.add_parser("render", help="rewrite the docs' tables from the records")
    ren.add_argument("--check", action="store_true", help="write nothing; exit 1 where a table differs")
    sub.add_parser("list", help="every record")
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []  # the command recorded, as it is
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if args.verb == "record":
        args.cmd = cmd or args.cmd
    try:
        return {"record": _record, "render": _render, "list": _list}[args.verb](args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
