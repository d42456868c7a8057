"""The room bus's waves (server/room_bus.py): every listener of a changed room is woken, in order,
with at most `in_flight` woken runs under way at once; a session that says `drawn` frees its place
at once, one that never does after `slot_s`; the run that made the change is left to finish first
(`hold`); changes queue as waves, one after another; `waving` says when a room's wave is under way,
and the other sessions' new runs wait for it (server/runs.py). Fake sessions only: the wakes are
callables that record when they ran and say `drawn` from a thread of their own, as a phone's run
would once it has drawn the change."""

from __future__ import annotations

import threading
import time

from server.room_bus import RoomBus
from server.runs import RunRegistry

ROOM, OTHER = "a" * 32, "b" * 32


class Phones:
    """`n` fake phones of `room` on `bus`: each wake starts a 'run' that says `drawn` after
    `run_s` (never, for the ids in `silent`); the most runs under way at once is kept."""

    def __init__(self, bus: RoomBus, room: str, n: int, run_s: float = 0.02,
                 silent: frozenset[int] = frozenset()) -> None:
        self.bus, self.room, self.run_s, self.silent = bus, room, run_s, silent
        self.lock = threading.Lock()
        self.under_way = self.most = 0
        self.woken: list[tuple[int, float]] = []
        for i in range(n):
            bus.listen(room, f"p{i}", lambda i=i: self.wake(i))

    def wake(self, i: int) -> bool:
        with self.lock:
            self.woken.append((i, time.monotonic()))
            self.under_way += 1
            self.most = max(self.most, self.under_way)
        threading.Thread(target=self.run, args=(i,), daemon=True).start()
        return True

    def run(self, i: int) -> None:
        time.sleep(self.run_s)  # a phone's run: its length is the scenario's
        with self.lock:
            self.under_way -= 1
        if i not in self.silent:
            self.bus.drawn(self.room, f"p{i}")


def test_a_wave_wakes_every_phone_once_in_order_with_at_most_in_flight_under_way():
    bus = RoomBus(in_flight=2)
    phones = Phones(bus, ROOM, 12)
    bus.changed(ROOM)
    assert bus.settled(10.0)
    assert [i for i, _ in phones.woken] == list(range(12)) and bus.woken == 12
    assert phones.most <= 2, phones.most
    assert bus.expired == 0


def test_the_wave_follows_the_pace_of_the_runs():
    """A wave never outruns its phones' runs: with `in_flight` places, phone k is woken only once one
    of phones k − in_flight … k − 1 has said drawn, so its wake comes run_s after phone k − in_flight's
    at least, and the whole wave lasts (n − in_flight) × run_s / in_flight at least. Only lower bounds:
    a busy machine makes runs slower, never faster."""
    for run_s in (0.02, 0.04):
        bus = RoomBus(in_flight=2)
        phones = Phones(bus, ROOM, 20, run_s=run_s)
        began = time.monotonic()
        bus.changed(ROOM)
        assert bus.settled(10.0)
        took = time.monotonic() - began
        at = [t for _, t in phones.woken]
        gaps = [at[k] - at[k - 2] for k in range(2, len(at))]
        assert min(gaps) >= run_s * 0.999, (run_s, gaps)
        assert took >= 18 * run_s / 2, (run_s, took)


def test_a_phone_that_never_says_drawn_frees_its_place_after_slot_s():
    bus = RoomBus(in_flight=1, slot_s=0.2)
    phones = Phones(bus, ROOM, 4, run_s=0.0, silent=frozenset({1}))
    bus.changed(ROOM)
    assert bus.settled(5.0)
    woken = dict(phones.woken)
    assert woken[2] - woken[1] >= 0.19, "the next phone waits for the silent one's place"
    assert woken[3] - woken[2] < 0.15, "and then the wave goes on at the pace of the others"
    deadline = time.monotonic() + 5.0
    while bus.under_way() and time.monotonic() < deadline:  # the last phone's run says drawn
        time.sleep(0.01)
    assert bus.expired == 1 and bus.under_way() == 0


def test_the_run_that_made_the_change_is_left_to_finish_first():
    held = threading.Event()
    began: list[float] = []

    def hold() -> None:
        began.append(time.monotonic())
        time.sleep(0.2)  # the change's own run: its length is what the wave must wait out
        held.set()

    bus = RoomBus(hold=hold)
    phones = Phones(bus, ROOM, 3)
    bus.changed(ROOM)
    assert bus.settled(5.0) and held.is_set()
    assert phones.woken[0][1] - began[0] >= 0.19


def test_changes_queue_as_waves_and_waving_says_which_room_is_being_woken():
    bus = RoomBus(in_flight=1)
    first = Phones(bus, ROOM, 5, run_s=0.05)
    second = Phones(bus, OTHER, 2, run_s=0.0)
    assert not bus.waving() and not bus.waving(ROOM)
    bus.changed(ROOM)
    bus.changed(OTHER)
    assert bus.waving() and bus.waving(ROOM) and bus.waving(OTHER)  # OTHER's wave is queued
    assert bus.settled(5.0)
    assert not bus.waving() and not bus.waving(ROOM)
    assert max(t for _, t in first.woken) < min(t for _, t in second.woken), "one wave after the other"


def test_a_session_that_is_gone_gives_its_place_back_at_once():
    bus = RoomBus(in_flight=1, slot_s=5.0)
    bus.listen(ROOM, "gone", lambda: False)
    phones = Phones(bus, ROOM, 2)
    began = time.monotonic()
    bus.changed(ROOM)
    assert bus.settled(5.0) and time.monotonic() - began < 1.0
    assert [i for i, _ in phones.woken] == [0, 1] and bus.listeners(ROOM) == 2


def test_other_sessions_new_runs_wait_for_a_wave_the_teacher_never_does(monkeypatch):
    from server import runs as runs_module

    bound = 0.8  # WAVE_WAIT_S shortened: the test is of the bound, not of its value
    monkeypatch.setattr(runs_module, "WAVE_WAIT_S", bound)
    runs = RunRegistry()
    waving = threading.Event()
    runs.waves = waving.is_set
    waving.set()
    threading.Timer(0.2, waving.clear).start()
    began = time.monotonic()
    with runs.running():
        waited = time.monotonic() - began
    assert 0.18 <= waited < bound - 0.1 and runs.held == 1  # till the wave ended, not the bound
    waving.set()
    began = time.monotonic()
    with runs.running(first=True):  # the teacher's run goes at once
        assert time.monotonic() - began < bound / 3  # a wait would be the bound
    assert runs.wait_for_first(1.0, waves=False) == 0.0  # the bus's own hold never waits for waves
    assert bound - 0.05 <= runs.wait_for_first(1.0) < bound + 0.5  # bounded
    waving.clear()


def test_a_phone_is_pending_until_its_wave_reaches_it():
    """A phone's own poll leaves the change to the wave while `pending` (pages/ui/live/class_follow.py
    `poll`); once woken it is not, so a run of it cut short is repaired by its poll."""
    bus = RoomBus(in_flight=1)
    phones = Phones(bus, ROOM, 6, run_s=0.05)
    bus.changed(ROOM)
    assert bus.pending(ROOM, "p5") and not bus.pending(OTHER, "p5")
    deadline = time.monotonic() + 5.0
    while len(phones.woken) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert not bus.pending(ROOM, "p0") and bus.pending(ROOM, "p5")
    assert bus.settled(5.0) and not any(bus.pending(ROOM, f"p{i}") for i in range(6))


def test_a_room_found_ended_wakes_its_phones_one_last_time_and_forgets_them():
    """The end of a class: a run that reads the room as unknown drops it (server/rooms.py), on the
    teacher's replica often before the change's own wave has come back through Redis; the drop
    wakes the phones that were listening, so each shows "the class has ended" at once."""
    bus = RoomBus()
    phones = Phones(bus, ROOM, 5)
    bus.drop(ROOM)
    assert bus.settled(5.0)
    assert sorted(i for i, _ in phones.woken) == list(range(5))
    assert bus.rooms() == 0
    bus.drop(ROOM)  # a second run finding it gone wakes no one again
    bus.changed(ROOM)
    assert bus.settled(5.0) and len(phones.woken) == 5


def test_a_room_found_ended_during_its_own_wave_leaves_the_phones_still_to_wake_to_it():
    """The end's own wave: its first woken phone finds the room gone and drops it. The phones that
    wave has still to wake are woken by it once, not a second time (a second wake would cut short the
    whole run each is about to draw); those it already woke get the last wake, and the wave's
    timings still count the phones that drew it."""
    bus = RoomBus(in_flight=1)
    phones = Phones(bus, ROOM, 6, run_s=0.02)
    dropped = threading.Event()

    def first_finds_it_gone(i: int, wake=phones.wake) -> bool:
        if i == 0 and not dropped.is_set():
            dropped.set()
            bus.drop(ROOM)  # as the phone's run would, reading the ended room
        return wake(i)

    phones.wake = first_finds_it_gone  # type: ignore[method-assign]
    bus.changed(ROOM)
    assert bus.settled(5.0)
    woken = [i for i, _ in phones.woken]
    assert sorted(woken) == [0, 0, 1, 2, 3, 4, 5], woken  # phone 0 was woken before the drop: again
    assert bus.rooms() == 0
    assert bus.stats()["waves"][0]["drawn"] >= 5
