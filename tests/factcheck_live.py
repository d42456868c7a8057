"""Every fact-check claim measured once per test process (seed 0), shared by the unit, CLI and page tests."""

from __future__ import annotations

import functools
from typing import Any

from core import factcheck as fc


@functools.cache
def live_results(seed: int = 0) -> dict[str, dict[str, Any]]:
    """{claim id: fc.check(id, seed)} for every claim (about a minute or two on two busy cores)."""
    return {c.id: fc.check(c.id, seed) for c in fc.CLAIMS}
