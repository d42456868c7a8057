"""Waiting for a condition instead of for a time: poll it until it holds or a deadline passes, then
fail naming what did not happen. A fixed sleep is kept in a test only where the time itself is what
is tested (an age, a window, "nothing happens for 1 s"), with a comment saying so."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def _rounds(what: str, timeout: float) -> Iterator[None]:
    """One round per poll until `timeout` s have passed; then AssertionError naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        yield
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} not within {timeout:g} s")


def wait_until(what: str, predicate: Callable[[], T], timeout: float = 10.0, interval: float = 0.05) -> T:
    """Call `predicate()` every `interval` s until it returns something truthy, and return that;
    AssertionError("<what> not within <timeout> s") once `timeout` s have passed without."""
    for _ in _rounds(what, timeout):
        if value := predicate():
            return value
        time.sleep(interval)


async def until(what: str, predicate: Callable[[], T], timeout: float = 10.0, interval: float = 0.05) -> T:
    """`wait_until` inside an event loop: the loop's other tasks run while it waits."""
    for _ in _rounds(what, timeout):
        if value := predicate():
            return value
        await asyncio.sleep(interval)


def wait_js(page: Any, what: str, js: str, arg: Any = None, timeout_ms: float = 10_000) -> Any:
    """Playwright's `page.wait_for_function(js, arg)` (evaluated at each animation frame), failing
    with AssertionError("<what> not within <timeout> s") instead of a bare timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(js, arg=arg, timeout=timeout_ms)
    except PlaywrightTimeout:
        raise AssertionError(f"{what} not within {timeout_ms / 1000:g} s") from None


# Every CSS animation and transition on the page has finished.
SETTLED_JS = "() => document.getAnimations().every(a => a.playState !== 'running')"
NEXT_FRAME_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def next_frame(page: Any) -> None:
    """Wait until the browser has drawn a frame since this call: what a key press or a style change
    did is laid out and painted."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(r))")


def wait_settled(page: Any, timeout_ms: float = 10_000) -> None:
    """Wait until the page's animations and transitions are over and a frame has been drawn since,
    so that the next screenshot or measurement sees their end."""
    wait_js(page, "the page's animations ending", SETTLED_JS, timeout_ms=timeout_ms)
    page.evaluate(NEXT_FRAME_JS)
