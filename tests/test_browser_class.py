"""A live class on the lesson page in a real browser: one teacher (1280×720, projector mode) and three
phones (390×844) against a fresh `streamlit run app.py` (pages/ui/live/who.py,
pages/ui/live/class_vote.py, server/rooms.py), running the whole peer-instruction loop.

The teacher starts a class; two phones join by the room's link (one in Chinese: each phone's language
is its own), one by typing the code, lower-case with a space, into the Join popover. The phones follow
the teacher's Next and answer with pills; during the vote the projector shows only how many answered.
*Close vote* (from the keyboard) draws the room's answers and tells the phones the vote is closed;
*Vote again* puts the discussion's prompt and a countdown on the projector (it ticks, and +30 s adds
half a minute); the phones answer the second vote and two of them tap a confidence; the teacher's
hint, off on a projector, is switched on from the keyboard and shows the band of the share correct
(never on a phone); closing the vote splits the bars by confidence; the reveal shows each phone the
measurement beside its own answer; *Our votes* shows each vote's share correct, as the Summary CSV
does; the phones are told when the class ends, the CSV stays in the tab, and the teacher's secret
reaches neither the address bar nor the page (only the Teacher link dialog). Times are measured in
the browsers' own clocks and written to tests/artifacts/class-timings.json; screenshots land in
tests/artifacts/screens/class-*.
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from axe_check import axe_problems
from class_browser import (
    DESKTOP,
    DIALOG,
    FOLLOW_S,
    PHONE,
    QUESTION,
    WAIT_MS,
    click,
    csv_counts,
    download,
    expected,
    heading,
    new_page,
    panel_shot,
    pick,
    pill_labels,
    press,
    say,
    screenshot,
    seconds_left,
    seen_after,
    shares,
    tap,
    wait_left,
    watch,
)
from conftest import ARTIFACTS, require_browser

from core import lesson
from tools.app_driver import open_sidebar, serve, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.server]


@pytest.fixture(scope="module")
def server():
    require_browser()
    with serve(ARTIFACTS / "streamlit-class.log") as url:
        yield url


def test_a_live_class_with_three_phones(browser, server):
    started = time.monotonic()
    timings: dict[str, object] = {}
    try:
        live_class(browser, server, timings)
    finally:  # what was measured, also when a check failed
        timings["wall_s"] = round(time.monotonic() - started, 1)
        (ARTIFACTS / "class-timings.json").write_text(json.dumps(timings, indent=2, sort_keys=True))


def live_class(browser, server, timings: dict[str, object]) -> None:
    late: list[str] = []  # the timing and accessibility findings, asserted at the end (the flow goes on)

    # ---------------------------------------------------------------- the teacher starts a class
    teacher = new_page(browser, DESKTOP, f"{server}/lesson")
    teacher.locator(".st-key-lesson_projector label").first.click()  # projector mode
    teacher.wait_for_function("() => location.search.includes('lesson_projector=1')", timeout=WAIT_MS)
    wait_idle(teacher)
    click(teacher, "class_start")
    teacher.wait_for_function("() => new URLSearchParams(location.search).get('room')", timeout=WAIT_MS)
    bar = teacher.locator(".st-key-class_bar")
    bar.wait_for(timeout=WAIT_MS)
    wait_idle(teacher)
    code = bar.locator("code").first.inner_text().strip()  # read off the projector
    assert re.fullmatch(r"[A-Z0-9]{6}", code), code
    assert parse_qs(urlsplit(teacher.url).query)["room"] == [code]
    host = urlsplit(server).netloc
    assert say("class.teacher.bar", "en", code=code, where=f"{host}/lesson") in bar.inner_text()
    teacher_pages = [teacher.content()]  # searched for the secret once it is known

    # The Share dialog gives the room's link (no secret, no language).
    click(teacher, "lesson_share")
    share = teacher.locator(DIALOG)
    share.wait_for(timeout=WAIT_MS)
    link = share.locator('[data-testid="stCode"]').inner_text().strip()
    assert link == f"{server}/lesson?room={code}", link
    teacher_pages.append(teacher.content())
    teacher.keyboard.press("Escape")
    share.wait_for(state="detached", timeout=WAIT_MS)

    # ---------------------------------------------------------------- three phones join
    langs = {"en": "en", "zh": "zh", "typed": "en"}
    phones = {"en": new_page(browser, PHONE, f"{server}/lesson?room={code}"),
              "zh": new_page(browser, PHONE, f"{server}/lesson?room={code}&lang=zh")}
    typed = new_page(browser, PHONE, f"{server}/lesson")
    open_sidebar(typed)  # "Join a class" is in the sidebar, which a phone opens first
    typed.locator('[data-testid="stPopover"] button').filter(has_text=say("class.join", "en")).click()
    typed.locator(".st-key-class_typed input").fill(f"{code[:3].lower()} {code[3:].lower()}")
    typed.locator(".st-key-class_typed input").press("Enter")
    wait_idle(typed)
    click(typed, "class_join")
    typed.wait_for_function("(c) => new URLSearchParams(location.search).get('room') === c", arg=code,
                            timeout=WAIT_MS)
    wait_idle(typed)
    phones["typed"] = typed

    ids = set()
    for name, phone in phones.items():
        lang = langs[name]
        query = parse_qs(urlsplit(phone.url).query)
        assert query.get("room") == [code], (name, phone.url)
        assert re.fullmatch(r"[0-9a-f]{12}-[0-9a-f]{16}", query.get("me", [""])[0]), (name, phone.url)
        ids.add(query["me"][0])
        bar_text = phone.locator(".st-key-class_bar").inner_text()
        assert say("class.student.bar", lang, code=code) in bar_text, (name, bar_text)
        assert phone.locator("h1").first.inner_text() == heading(1, lang), name
        step_of = say("lesson.step_of", lang, k=1, total=len(lesson.STEPS),
                      name=say(f"lesson.{lesson.STEPS[0].name}.name", lang))
        assert step_of in phone.locator(".st-key-lesson_nav").inner_text(), name
        for key in ("lesson_prev", "lesson_next", "lesson_share"):
            assert phone.locator(f".st-key-{key}").count() == 0, f"{name}: a student page has {key}"
    assert len(ids) == 3, "each phone is its own student"
    assert "课堂" in phones["zh"].locator(".st-key-class_bar").inner_text()  # the Chinese phone…
    assert teacher.locator("h1").first.inner_text() == heading(1, "en")  # …and the English projector
    assert say("class.teacher.bar", "en", code=code, where=f"{host}/lesson") in bar.inner_text()

    # ---------------------------------------------------------------- Next: the phones follow
    t0 = click(teacher, "lesson_next")
    follow = seen_after(phones, lambda n: "h1:" + heading(2, langs[n]), t0)
    timings["teacher_step2_s"] = seen_after({"t": teacher}, lambda n: "h1:" + heading(2, "en"), t0)["t"]
    timings["phones_step2_s"] = follow
    timings["phones_step2_max_s"] = max(follow.values())
    if max(follow.values()) > FOLLOW_S:
        late.append(f"a phone showed step 2 {max(follow.values()):.2f} s after Next (> {FOLLOW_S} s): "
                    f"{follow}")
    wait_idle(teacher)

    # ---------------------------------------------------------------- the first vote: the count alone
    labels = {n: pill_labels(p, code, 2, 1) for n, p in phones.items()}
    assert len(labels["en"]) >= 3, labels
    assert labels["en"] == labels["typed"] and len(labels["zh"]) == len(labels["en"])
    en_labels = labels["en"]
    first = {"en": 0, "zh": 1, "typed": 2}  # three different answers
    all_in = say("class.answered", "en", n=3, joined=3)
    watch({"t": teacher}, lambda n: all_in)
    sent = {}
    for name, phone in phones.items():
        sent[name] = pick(phone, code, 2, 1, first[name])[0]
    for name, phone in phones.items():
        phone.get_by_text(say("class.student.sent", langs[name], label=labels[name][first[name]])).wait_for(
            timeout=WAIT_MS)
    count = seen_after({"t": teacher}, lambda n: all_in, max(sent.values()))
    timings["count_3_of_3_after_last_answer_s"] = count["t"]
    if count["t"] > FOLLOW_S:
        late.append(f"the projector counted the 3rd answer {count['t']:.2f} s after it (> {FOLLOW_S} s)")
    panel = teacher.locator(QUESTION)
    assert f"{say('class.answered', 'en', n=3, joined=3)} · {say('class.vote.1', 'en')} · " \
           f"{say('class.joined', 'en', n=3)}" in panel.inner_text()
    assert say("class.hidden", "en") in panel.inner_text()
    chart = panel.locator('[data-testid="stVegaLiteChart"]')
    assert chart.count() == 0, "during the vote the projector shows how many answered, no histogram"
    for phone in (teacher, *phones.values()):
        wait_idle(phone)
    screenshot(teacher, "class-projector-midvote-en.png")
    timings["projector_midvote_main_px"] = teacher.evaluate(  # whether the step fits the projector
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
        " return {scroll: m.scrollHeight, client: m.clientHeight}; }")
    screenshot(phones["zh"], "class-phone-midvote-zh.png")
    teacher_pages.append(teacher.content())
    inaccessible = axe_problems(teacher, "lesson?room (teacher, 1st vote) desktop")
    inaccessible += axe_problems(phones["zh"], "lesson?room&lang=zh (student, 1st vote) phone")

    # ---------------------------------------------------------------- Close vote: the histogram
    closed = {n: say("class.student.closed", langs[n]) for n in phones}
    watch(phones, closed.get)
    t0 = press(teacher, "class_close")  # from the keyboard
    timings["phones_closed_s"] = seen_after(phones, closed.get, t0)
    chart.first.wait_for(timeout=WAIT_MS)
    assert chart.count() == 1, "a closed vote's answers are drawn"
    for name, phone in phones.items():
        pills = phone.locator(f'.st-key-class_pick_{code}_2_1 [data-testid="stButtonGroup"] button')
        assert pills.nth(0).is_disabled(), f"{name}: a closed vote's pills still take answers"
    wait_idle(teacher)
    screenshot(teacher, "class-projector-closed-en.png")
    panel_shot(teacher, "class-panel-closed-en.png", '[data-testid="stVegaLiteChart"]')
    screenshot(phones["en"], "class-phone-closed-en.png")

    # ---------------------------------------------------------------- Vote again: discuss, countdown
    vote2 = {n: say("class.student.vote2", langs[n]) for n in phones}
    watch(phones, vote2.get)
    t0 = click(teacher, "class_vote2")
    timings["phones_vote2_notice_s"] = seen_after(phones, vote2.get, t0)
    start = seconds_left(teacher)
    assert say("class.discuss.title", "en") in teacher.locator(".st-key-class_discuss").inner_text()
    assert chart.count() == 0, "the second vote is hidden too"
    assert 100 <= start <= 120, start
    ticked = wait_left(teacher, lambda s: s < start, "ticked")
    timings["countdown_ticked"] = [start, ticked]
    press(teacher, "class_discuss_more")
    grown = wait_left(teacher, lambda s: s >= ticked + 25, "grew by 30 s")
    timings["countdown_after_plus_30"] = grown
    wait_idle(teacher)
    screenshot(teacher, "class-projector-discuss-en.png")
    panel_shot(teacher, "class-panel-discuss-en.png", ".st-key-class_discuss")
    for phone in phones.values():
        assert phone.locator(".st-key-class_discuss").count() == 0, "the countdown is the projector's"

    # ---------------------------------------------------------------- the second vote, with confidence
    second = {"en": 1, "zh": 1, "typed": 0}
    sure = {"en": 0, "zh": 1}  # en taps "sure", zh "guessing", the typed phone neither
    all_in_again = f"{all_in} · {say('class.vote.2', 'en')}"
    watch({"t": teacher}, lambda n: all_in_again)
    sent = {n: pick(p, code, 2, 2, second[n])[0] for n, p in phones.items()}
    for name, phone in phones.items():
        try:
            answered = say("class.student.sent", langs[name], label=labels[name][second[name]])
            phone.get_by_text(answered).wait_for(timeout=WAIT_MS)
        except Exception:
            screenshot(phone, f"class-phone-failed-{name}.png")
            raise
    for name, level in sure.items():
        tapped = tap(phones[name], f"class_conf_{code}_2_2", level)
        assert tapped == say(f"class.conf.{('sure', 'guessing')[level]}", langs[name])
    count = seen_after({"t": teacher}, lambda n: all_in_again, max(sent.values()))
    timings["count_3_of_3_vote2_after_last_answer_s"] = count["t"]
    if count["t"] > FOLLOW_S:
        late.append(f"the projector counted the 3rd answer of the 2nd vote {count['t']:.2f} s after it "
                    f"(> {FOLLOW_S} s)")

    # ---------------------------------------------------------------- the teacher's hint
    live = shares(download(teacher, "class_csv"))[(2, 2)]
    assert live is not None
    band = "reteach" if live < 0.3 else ("reveal" if live > 0.7 else "discuss")
    hint = say(f"class.hint.{band}", "en", share=f"{round(100 * live)} %", vote=say("class.vote.2", "en"))
    assert teacher.locator(".st-key-class_hint").count() == 0, "the hint is off on a projector"
    press(teacher, "class_hint_on", " ")  # switched on from the keyboard
    teacher.locator(".st-key-class_hint").wait_for(timeout=WAIT_MS)
    teacher.get_by_text(hint).wait_for(timeout=WAIT_MS)
    panel_shot(teacher, "class-panel-hint-en.png", ".st-key-class_hint")
    for name, phone in phones.items():
        prefix = say("class.hint.discuss", langs[name]).split("{")[0]
        assert prefix not in phone.locator('[data-testid="stMain"]').inner_text(), f"{name} shows the hint"
    press(teacher, "class_hint_on", " ")
    teacher.locator(".st-key-class_hint").wait_for(state="detached", timeout=WAIT_MS)

    # ---------------------------------------------------------------- Close vote: split by confidence
    press(teacher, "class_close")
    split = say("class.hist.item_split", "en", label=en_labels[1], n=2, sure=1, guessing=1)
    teacher.wait_for_function(  # the chart's text alternative
        "(t) => document.querySelector('.st-key-lesson_question').textContent.includes(t)", arg=split,
        timeout=WAIT_MS)
    chart.first.wait_for(timeout=WAIT_MS)
    rated = say("class.hist.rated", "en", label=en_labels[1],
                tail=say("class.hist.tail.both", "en", sure=1, guessing=1))
    words = say("class.hist.rated_line", "en", vote=say("class.vote.2", "en"), items=rated)
    teacher.get_by_text(words).wait_for(timeout=WAIT_MS)  # the split in words, under the chart
    wait_idle(teacher)
    panel_shot(teacher, "class-panel-split-en.png", '[data-testid="stVegaLiteChart"]')

    # ---------------------------------------------------------------- the reveal
    results = {n: f"{say('lesson.result.guess', langs[n])}: {labels[n][second[n]]} · "
                  f"{say('lesson.result.measured', langs[n])}: " for n in phones}
    watch(phones, results.get)
    t0 = click(teacher, "class_reveal")
    timings["phones_reveal_s"] = seen_after(phones, results.get, t0)
    measured = {}
    for name, phone in phones.items():
        alert = phone.locator(f'{QUESTION} [data-testid="stAlert"]').first
        text = alert.inner_text()
        found = re.search(re.escape(results[name].replace("  ", " ")) + r"(\S+)", text.replace("\n", " "))
        assert found, f"{name}: no measurement beside its own answer: {text!r}"
        measured[name] = found.group(1)
    assert len(set(measured.values())) == 1, f"the phones show different measurements: {measured}"
    value = measured["en"]
    wait_idle(teacher)
    assert f"✓ measured {value}" in panel.text_content(), "the projector's chart names the measured answer"
    for phone in phones.values():
        wait_idle(phone)
    screenshot(teacher, "class-projector-revealed-en.png")
    screenshot(phones["en"], "class-phone-revealed-en.png")
    teacher_pages.append(teacher.content())

    # ---------------------------------------------------------------- the summary and Our votes
    summary = download(teacher, "class_csv")
    counts = csv_counts(summary)
    assert counts.get((2, 1)) == expected(en_labels, list(first.values())), (counts, summary)
    assert counts.get((2, 2)) == expected(en_labels, list(second.values())), (counts, summary)
    assert sum(counts.get((1, 1), {}).values()) == 0, "nobody answered step 1"
    rated = {(r["answer"], r["sure"], r["guessing"]) for r in csv.DictReader(io.StringIO(summary))
             if r["step"] == "2" and r["vote"] == "2" and r["count"] != "0"}
    assert rated == {(en_labels[1], "1", "1"), (en_labels[0], "0", "0")}, rated
    share = shares(summary)
    click(teacher, "class_votes")
    slide = teacher.locator(DIALOG)
    slide.wait_for(timeout=WAIT_MS)
    assert say("class.our_votes.lead", "en") in slide.inner_text()
    slide.locator('[data-testid="stVegaLiteChart"]').first.wait_for(timeout=WAIT_MS)
    for vote in (1, 2):
        item = say("class.our_votes.item", "en", vote=say(f"class.vote.{vote}", "en"),
                   pct=f"{round(100 * share[(2, vote)])} %", n=3)
        assert item in slide.text_content(), (item, slide.text_content())
    wait_idle(teacher)
    screenshot(teacher, "class-projector-our-votes-en.png")
    timings["our_votes"] = {f"vote{v}": share[(2, v)] for v in (1, 2)}
    teacher.keyboard.press("Escape")
    slide.wait_for(state="detached", timeout=WAIT_MS)

    # ---------------------------------------------------------------- the teacher link
    teacher_pages.append(teacher.content())
    click(teacher, "class_link")
    dialog = teacher.locator(DIALOG)
    dialog.wait_for(timeout=WAIT_MS)
    secret_link = dialog.locator('[data-testid="stCode"]').inner_text().strip()
    found = re.fullmatch(re.escape(f"{server}/lesson?room={code}&take=1#key=") + r"([A-Za-z0-9_-]{16,})",
                         secret_link)
    assert found, f"the Teacher link dialog shows no teacher link: {secret_link!r}"
    secret = found.group(1)
    assert secret in dialog.inner_text()
    for i, html in enumerate(teacher_pages):
        assert secret not in html, f"the teacher's secret was in the page before its dialog (snapshot {i})"
    teacher.keyboard.press("Escape")
    dialog.wait_for(state="detached", timeout=WAIT_MS)

    # ---------------------------------------------------------------- the end
    ended = {n: say("class.ended.student", langs[n]) for n in phones}
    watch(phones, ended.get)
    click(teacher, "class_end")
    dialog.wait_for(timeout=WAIT_MS)
    assert say("class.end.what", "en") in dialog.inner_text()
    t0 = click(teacher, "class_end_confirm")
    timings["phones_ended_s"] = seen_after(phones, ended.get, t0)
    if max(timings["phones_ended_s"].values()) > FOLLOW_S:
        late.append(f"a phone was told of the end {max(timings['phones_ended_s'].values()):.2f} s after it "
                    f"(> {FOLLOW_S} s): {timings['phones_ended_s']}")
    notice = teacher.locator(".st-key-class_ended_box")
    notice.wait_for(timeout=WAIT_MS)
    assert say("class.ended", "en", code=code) in notice.inner_text()
    wait_idle(teacher)
    kept = download(teacher, "class_csv_after")
    assert csv_counts(kept) == counts, "the summary kept in the tab is the one of the live class"
    assert teacher.locator(".st-key-class_bar").count() == 0

    # ---------------------------------------------------------------- the secret stayed secret
    urls = teacher.evaluate("() => window.__urls")
    assert not [u for u in [*urls, teacher.url] if secret in u], urls
    assert secret not in teacher.content()
    for name, phone in phones.items():
        assert secret not in phone.content(), name

    for page in (teacher, *phones.values()):
        page.context.close()
    assert not inaccessible, inaccessible
    assert not late, late
