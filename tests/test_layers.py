"""core/ is built in floors: every import points to the same floor or one below, there is no import
cycle, and core never imports the app (streamlit, pages), the tooling (tools) or the tests. Above it,
server/ serves without drawing (never Streamlit, the pages or the tooling; its one door to Streamlit's
internals, server/st_internals.py, imports Streamlit's runtime but never `streamlit` itself, which
draws), and pages/ui/ draws for the pages without importing one of them (docs/architecture.md).

The graph is read from the source with `ast`: every `import` and `from … import`, including those
inside functions. `from core.gpu import checks` is an import of core.gpu.checks (a submodule), `from
core.gpu import kernel_report` one of core.gpu (the package's face); importing a submodule counts as
an import of that submodule only, so a package's face may re-export from the floors below it.

FLOORS is the architecture, one line per module: a new module of core/ fails
`test_every_module_of_core_has_a_floor` until it is placed here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FLOOR_NAMES: dict[int, str] = {
    0: "primitives",
    1: "kernels: device, launchers, NumPy twins",
    2: "kernel checks (launcher vs twin)",
    3: "kernel guard (first-use gate, *_or_none), GPU benchmark",
    4: "experiments",
    5: "topics composing experiments",
    6: "figures of the pages and the lesson",
    7: "entry points",
}

FLOORS: dict[str, int] = {
    "core": 0,
    "core.errors": 0,
    "core.budget": 0,
    "core.backend": 0,
    "core.scales": 0,
    "core.sampling": 0,
    "core.attention": 0,
    "core.validate": 0,
    "core.results": 0,
    "core.timing": 0,
    "core.stats": 0,
    "core.figure_budget": 0,
    "core.memo": 0,
    "core.gpu.device": 1,
    "core.gpu.launch": 1,
    "core.gpu.twins": 1,
    "core.gpu.checks": 2,
    "core.gpu.guard": 3,
    "core.gpu.bench": 3,
    "core.gpu": 3,
    "core.experiments.score_variance": 4,
    "core.experiments.softmax_saturation": 4,
    "core.experiments.query_gradients": 4,
    "core.experiments.low_precision": 4,
    "core.experiments.attention_cost": 4,
    "core.experiments.attention_bench": 4,
    "core.experiments.gradient_sweep": 4,
    "core.experiments.entropy_grid": 4,
    "core.experiments": 4,
    "core.factcheck": 5,
    "core.factcheck.claims": 5,
    "core.factcheck.rules": 5,
    "core.factcheck.notes_000": 5,
    "core.factcheck.notes_001": 5,
    "core.factcheck.notes_002": 5,
    "core.factcheck.notes_003": 5,
    "core.factcheck.notes_004": 5,
    "core.factcheck.quote_text": 5,
    "core.factcheck.measure_calculus": 5,
    "core.factcheck.measure_cost": 5,
    "core.factcheck.measure_gradients": 5,
    "core.factcheck.measure_init": 5,
    "core.factcheck.measure_maxima": 5,
    "core.factcheck.measure_scores": 5,
    "core.factcheck.measure_training": 5,
    "core.factcheck.measure_weights": 5,
    "core.beyond": 5,
    "core.qk": 5,
    "core.training": 5,
    "core.real_model": 5,
    "core.cost": 5,
    "core.stability": 4,
    "core.stability.model": 4,
    "core.stability.train": 4,
    "core.stability.sweep": 4,
    "core.stability.length": 5,
    "core.views": 6,
    "core.curve_overlap": 6,
    "core.lesson": 6,
    "core.lesson.questions": 6,
    "core.lesson.steps_scale": 6,
    "core.lesson.steps_beyond": 6,
    "core.page_claims": 6,
    "core.page_claims.gradients": 6,
    "core.page_claims.overview": 6,
    "core.page_claims.precision": 6,
    "core.page_claims.cost": 6,
    "core.page_claims.saturation": 6,
    "core.page_claims.variance": 6,
    "core.cli": 7,
    "core.__main__": 7,
    "core.gpu_check": 7,
}

FORBIDDEN: tuple[str, ...] = ("streamlit", "pages", "tools", "tests", "conftest", "app")


def modules(root: Path, package: str = "core") -> dict[str, Path]:
    """{dotted module name: file} for every .py under root/package."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Every module `name` imports, anywhere in its file: a known module where the name resolves to
    one (`from a import b` is a.b when that is a module, else a), the dotted name otherwise."""
    is_package = path.name == "__init__.py"
    base = name.split(".") if is_package else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the package, one level up per extra dot
                stem = base[:len(base) - node.level + 1]
                source = ".".join([*stem, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source == "__future__":
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                out.add(sub if sub in known else source)
    return out


def import_graph(root: Path, package: str = "core") -> dict[str, set[str]]:
    """{module: every module it imports} for the modules of root/package."""
    mods = modules(root, package)
    return {name: imports_of(name, path, set(mods)) for name, path in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among the graph's own modules ([a, b, …, a]), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def tangles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other round a cycle (strongly connected components of
    more than one module, or a module importing itself), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                out.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(out)


def upward_imports(graph: dict[str, set[str]], floors: dict[str, int], same: bool = False) -> list[str]:
    """'a (floor i) → b (floor j)' for every import of a module on a higher floor (`same`: or on
    the same floor)."""
    return [f"{a} (floor {floors[a]}) → {b} (floor {floors[b]})"
            for a, targets in sorted(graph.items()) for b in sorted(targets)
            if a in floors and b in floors and (floors[b] >= floors[a] if same else floors[b] > floors[a])]


def forbidden_imports(graph: dict[str, set[str]]) -> list[str]:
    """'a → x' for every import of the app, the tooling or the tests."""
    return [f"{a} → {b}" for a, targets in sorted(graph.items()) for b in sorted(targets)
            if b.split(".")[0] in FORBIDDEN]


GRAPH = import_graph(ROOT)


def test_every_module_of_core_has_a_floor():
    assert set(GRAPH) - set(FLOORS) == set(), "place each new module of core/ in FLOORS"
    assert set(FLOORS) - set(GRAPH) == set(), "FLOORS names modules that no longer exist"
    assert set(FLOORS.values()) <= set(FLOOR_NAMES)


def test_core_has_no_import_cycle():
    assert tangles(GRAPH) == [], f"for example {' → '.join(find_cycle(GRAPH) or [])}"


def test_imports_only_point_to_the_same_floor_or_below():
    assert upward_imports(GRAPH, FLOORS) == []


def test_core_never_imports_the_app_the_tooling_or_the_tests():
    assert forbidden_imports(GRAPH) == []


def test_the_graph_sees_function_local_imports():
    assert "core.real_model" in GRAPH["core.cli"]  # imported inside _beyond_the_notes only
    assert "core.factcheck" in GRAPH["core.cli"]


SERVER = import_graph(ROOT, "server")
PAGES = import_graph(ROOT, "pages")


DOOR = "server.st_internals"  # the one module of server/ that imports Streamlit (its internals)


def test_the_server_layer_uses_core_alone_and_never_draws():
    outside = [f"{a} → {b}" for a, targets in sorted(SERVER.items()) for b in sorted(targets)
               if b.split(".")[0] in FORBIDDEN and not (b.split(".")[0] == "streamlit" and a == DOOR)]
    assert outside == [] and tangles(SERVER) == []
    assert "streamlit" not in SERVER[DOOR]  # the door reads the runtime; it never draws
    assert all(b.split(".")[0] not in ("pages", "app") for targets in SERVER.values() for b in targets)


def test_the_ui_helpers_never_import_a_page_the_tooling_or_the_tests():
    ui = {a: t for a, t in PAGES.items() if a.startswith("pages.ui")}
    wrong = [f"{a} → {b}" for a, targets in sorted(ui.items()) for b in sorted(targets)
             if b.split(".")[0] in ("tools", "tests", "conftest", "app")
             or (b.startswith("pages.") and not b.startswith("pages.ui"))]
    assert ui and wrong == [] and tangles(ui) == []
    pages = [f"{a} → {b}" for a, targets in sorted(PAGES.items()) for b in sorted(targets)
             if b.split(".")[0] in ("tools", "tests", "conftest", "app")]
    assert pages == []


# pages/ui/ in floors of rooms: a top-level module, or a package taken as one (docs/architecture.md).
UI_FLOORS: dict[str, int] = {
    "text": 1, "st_dom": 1, "user_text": 1, "store_url": 1, "legacy_pages": 1, "run_order": 1,
    "i18n": 2, "a11y": 2,
    "format": 3, "url_state": 3, "notices": 3, "nav": 3,
    "layout": 4, "words": 4, "controls": 4, "compute": 4,
    "chart": 5,
    "live": 6, "lesson": 6, "stability": 6, "beyond_charts": 6, "sidebar": 6, "app_start": 6,
}
UI_MOST_FLOORS = 6


def ui_rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """{room of pages/ui: the other rooms it imports}; a room is the name under pages.ui (a module, or
    a package with everything in it); the package's face, pages/ui/__init__.py, is no room."""
    def room(name: str) -> str | None:
        parts = name.split(".")
        return parts[2] if parts[:2] == ["pages", "ui"] and len(parts) > 2 else None

    out: dict[str, set[str]] = {}
    for a, targets in graph.items():
        if (ra := room(a)) is not None:
            out.setdefault(ra, set()).update(rb for b in targets if (rb := room(b)) not in (None, ra))
    return out


def test_every_room_of_pages_ui_has_a_floor_and_imports_only_from_below():
    rooms = ui_rooms(PAGES)
    assert set(rooms) == set(UI_FLOORS), "place a new room in UI_FLOORS (and docs/architecture.md)"
    assert upward_imports(rooms, UI_FLOORS, same=True) == []
    assert max(UI_FLOORS.values()) <= UI_MOST_FLOORS


def test_a_ui_import_on_the_same_floor_or_up_is_found():
    graph = {"pages.ui.format": {"pages.ui.i18n", "pages.ui.words"}, "pages.ui.live.who": {"pages.ui.format"},
             "pages.ui.words": {"pages.ui.format"}, "pages.ui.i18n": set()}
    rooms = ui_rooms(graph)
    assert rooms == {"format": {"i18n", "words"}, "live": {"format"}, "words": {"format"}, "i18n": set()}
    floors = {"i18n": 2, "format": 3, "words": 4, "live": 6}
    assert upward_imports(rooms, floors, same=True) == ["format (floor 3) → words (floor 4)"]


# ---------------------------------------------------------------- the checker catches what it claims to


def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for rel, text in files.items():
        path = tmp_path / "core" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return import_graph(tmp_path)


def test_a_cycle_through_a_function_local_import_is_found(tmp_path: Path):
    graph = _tree(tmp_path, {
        "__init__.py": "",
        "a.py": "from core import b\n",
        "b.py": "def f():\n    from core.pkg import c\n",
        "pkg/__init__.py": "",
        "pkg/c.py": "import core.a\n",
    })
    assert find_cycle(graph) == ["core.a", "core.b", "core.pkg.c", "core.a"]
    assert tangles(graph) == [["core.a", "core.b", "core.pkg.c"]]


def test_an_upward_and_a_forbidden_import_are_found(tmp_path: Path):
    graph = _tree(tmp_path, {
        "__init__.py": "",
        "low.py": "from core.high import x\nimport streamlit as st\n",
        "high.py": "from .low import y\nfrom tools.emulator import emulated\n",
    })
    assert find_cycle(graph) == ["core.high", "core.low", "core.high"]
    assert upward_imports(graph, {"core": 0, "core.low": 0, "core.high": 1}) == [
        "core.low (floor 0) → core.high (floor 1)"]
    assert forbidden_imports(graph) == ["core.high → tools.emulator", "core.low → streamlit"]


@pytest.mark.parametrize(("line", "expected"), [
    ("from core import sub", "core.sub"),
    ("from core import name", "core"),
    ("from core.sub import name", "core.sub"),
    ("import core.sub as s", "core.sub"),
    ("from . import sub", "core.sub"),
])
def test_import_forms_resolve_to_modules(tmp_path: Path, line: str, expected: str):
    graph = _tree(tmp_path, {"__init__.py": "", "sub.py": "", "user.py": line + "\n"})
    assert graph["core.user"] == {expected}
