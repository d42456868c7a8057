"""The teacher keeps the room in a real browser (pages/ui/live/teacher_key.py, server/room_auth.py) against
a fresh `streamlit run app.py`: after *Start a class* the browser holds an HttpOnly, SameSite=Strict
cookie for the room, set by the app's own route with the secret in a POST body; a reload is the
teacher again with the room's counts, never a student; the teacher link, opened on a second device
(another browser context), reads its secret from the fragment, removes it from the address bar,
takes the room back with a new secret and the first tab says it was revoked; no request line and no
address the tabs showed ever held a secret."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from class_browser import DESKTOP, DIALOG, PHONE, WAIT_MS, click, new_page, pick, say
from conftest import ARTIFACTS, require_browser

from tools.app_driver import serve, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.server]
TEACHER_S = 10.0  # a reloaded projector is the teacher again within this


@pytest.fixture(scope="module")
def server():
    require_browser()
    with serve(ARTIFACTS / "streamlit-class-teacher.log") as url:
        yield url


def record_requests(page, into: list[str]) -> None:
    page.on("request", lambda r: into.append(r.url))
    page.on("websocket", lambda ws: into.append(ws.url))


def wait_text(page, text: str, timeout_s: float = WAIT_MS / 1000) -> float:
    """Seconds until `text` is in the main area."""
    t0 = time.monotonic()
    page.locator('[data-testid="stMain"]').get_by_text(text, exact=False).first.wait_for(
        timeout=timeout_s * 1000)
    return time.monotonic() - t0


def test_the_teacher_keeps_the_room_through_a_reload_and_gives_it_to_a_second_device(browser, server):
    requests: list[str] = []
    teacher = new_page(browser, DESKTOP, f"{server}/lesson")
    record_requests(teacher, requests)
    click(teacher, "class_start")
    teacher.locator(".st-key-class_bar").wait_for(timeout=WAIT_MS)
    wait_idle(teacher)
    code = parse_qs(urlsplit(teacher.url).query)["room"][0]

    deadline = time.monotonic() + 10
    while not (cookies := [c for c in teacher.context.cookies() if c["name"] == f"ase_teacher_{code}"]):
        assert time.monotonic() < deadline, "the browser was never given the teacher's cookie"
        time.sleep(0.1)
    cookie = cookies[0]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    secret = cookie["value"].partition(".")[2]
    assert len(secret) >= 16
    assert teacher.evaluate("() => document.cookie").find(secret) < 0  # no script reads it

    phone = new_page(browser, PHONE, f"{server}/lesson?room={code}")
    pick(phone, code, 1, 1, 1)
    answered = say("class.answered", "en", n=1, joined=1)
    wait_text(teacher, answered)

    t0 = time.monotonic()
    teacher.reload()
    teacher.locator(".st-key-class_end button").wait_for(timeout=TEACHER_S * 1000)
    wait_text(teacher, answered, TEACHER_S)
    reload_s = time.monotonic() - t0
    assert reload_s < TEACHER_S, reload_s
    assert teacher.locator('[class*="st-key-class_pick_"]').count() == 0  # never a student
    assert parse_qs(urlsplit(teacher.url).query).get("me") is None

    click(teacher, "class_link")
    dialog = teacher.locator(DIALOG)
    dialog.wait_for(timeout=WAIT_MS)
    link = dialog.locator('[data-testid="stCode"]').inner_text().strip()
    assert re.fullmatch(re.escape(f"{server}/lesson?room={code}&take=1#key={secret}"), link), link
    teacher.keyboard.press("Escape")

    laptop = new_page(browser, DESKTOP, link)  # another device: its own browser
    record_requests(laptop, requests)
    laptop.locator(".st-key-class_end button").wait_for(timeout=WAIT_MS)
    wait_text(laptop, answered)
    assert "#" not in laptop.url and secret not in laptop.url
    assert laptop.evaluate("() => window.__urls").count(link) <= 1  # only the link as typed
    assert not [u for u in laptop.evaluate("() => window.__urls")[1:] if secret in u]
    deadline = time.monotonic() + 10
    while not (new := [c for c in laptop.context.cookies() if c["name"] == f"ase_teacher_{code}"]):
        assert time.monotonic() < deadline, "the second device was never given its cookie"
        time.sleep(0.1)
    assert new[0]["value"].partition(".")[2] != secret  # taken back: a new secret

    revoked_s = wait_text(teacher, say("class.status.revoked", "en"))
    assert teacher.locator(".st-key-class_end button").count() == 0
    assert teacher.locator('[class*="st-key-class_pick_"]').count() == 0
    assert not [u for u in requests if secret in u or new[0]["value"].partition(".")[2] in u], \
        "a secret was in a request line"
    (ARTIFACTS / "class-teacher-timings.json").write_text(
        f'{{"reload_s": {reload_s:.2f}, "revoked_s": {revoked_s:.2f}}}\n')
    for page in (teacher, phone, laptop):
        page.context.close()
