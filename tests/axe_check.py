"""axe-core on a page a browser test already has open (docs/accessibility.md).

The browser tests that open every page (tests/test_browser_screens.py, both languages, 1280×720 and
390×844) and every lesson step (tests/test_browser_lesson.py, both sizes, before and after the
reveal) scan it where it stands with `axe_problems(page, view)`: axe-core's WCAG 2.0–2.2 A and AA
rules, through the `axe-playwright-python` package, which ships axe-core and runs it inside the page.
Every serious or critical finding is a problem unless KNOWN excuses it with its upstream reason
(none today; tests/test_browser_a11y.py asserts the list is documented). Every scan's counts are
appended to tests/artifacts/axe-report.jsonl, one line per view.
"""

from __future__ import annotations

import json

from conftest import ARTIFACTS

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
BLOCKING = ("serious", "critical")
# (rule id, page) pairs that cannot be avoided, each with its upstream reason: none.
KNOWN: dict[tuple[str, str], str] = {}
REPORT = ARTIFACTS / "axe-report.jsonl"


def axe_findings(page) -> list[dict]:
    """axe-core's violations of the WCAG A/AA rules on the page as it stands."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
    return Axe().run(page, options=options).response["violations"]


def axe_problems(page, view: str) -> list[str]:
    """The serious and critical findings on `page` not excused by KNOWN, one line each; the scan's
    counts recorded under `view` ("variance?lang=zh phone")."""
    found = axe_findings(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with REPORT.open("a") as report:
        counts = {f"{f['id']} ({f['impact']})": len(f["nodes"]) for f in found}
        report.write(json.dumps({"view": view, "findings": counts}, ensure_ascii=False) + "\n")
    page_name = view.split("?", maxsplit=1)[0]
    return [f"{view}: {f['id']} ({f['impact']}, {len(f['nodes'])}×: {f['nodes'][0]['target']} — "
            f"{f['nodes'][0].get('failureSummary', '')[-160:]})"
            for f in found if f["impact"] in BLOCKING and (f["id"], page_name) not in KNOWN]
