"""The overview in a real browser: its links to each step show their whole label on a laptop (1280 px)
and a phone (390 px), in both languages (a label cut off by its column, "Why the dot product grow…",
reads as a typo)."""

from __future__ import annotations

import pytest
from conftest import served_app

from pages.ui.i18n import text_for
from tools.app_driver import VIEWPORTS, wait_idle

pytestmark = pytest.mark.browser

server = served_app("streamlit-overview.log")

STEPS = ("variance", "saturation", "gradients", "precision")
# Every element inside the main area's page links whose content is wider than its box (clipped or
# ellipsised), with the link's text.
LINKS = '[data-testid="stMain"] a[data-testid="stPageLink-NavLink"]'
CLIPPED_JS = """(links) => {
    const out = [];
    for (const link of document.querySelectorAll(links)) {
        for (const el of [link, ...link.querySelectorAll('*')]) {
            if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') {
                out.push(link.innerText.trim());
                break;
            }
        }
    }
    return out; }"""
LABELS_JS = """(links) => [...document.querySelectorAll(links)].map(a => a.innerText.trim())"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_overviews_links_show_their_whole_label_on_a_laptop_and_a_phone(browser, server, lang):
    for device in ("desktop", "phone"):
        context = browser.new_context(**VIEWPORTS[device])
        page = context.new_page()
        page.goto(f"{server}/?lang={lang}")
        wait_idle(page)
        labels = page.evaluate(LABELS_JS, LINKS)
        assert [text_for(f"{topic}.nav", lang) in " ".join(labels) for topic in STEPS] == [True] * 4, labels
        assert page.evaluate(CLIPPED_JS, LINKS) == [], (device, lang)
        context.close()
