"""Rate limits kept in the store (server/limits.py's SharedRateLimit, server/store.py's `rate`):
two replicas on one store share one allowance for each of the room limits, the shared bucket decides
exactly as the in-process one, a store that cannot be reached falls back to a limited bucket, and
names reach the store hashed. tests/test_server_redis.py runs the same across two Redis clients."""

from __future__ import annotations

import random

import pytest

from server.limits import RateLimit, SharedRateLimit
from server.store import MemoryStore


def _room_limits() -> list[tuple[str, float, float, float]]:
    """The room limits as server/rooms.py sets them (one source of truth): kind, per second, burst,
    the cost of one attempt."""
    from server.rooms import Rooms

    rooms = Rooms(MemoryStore())
    found = [v for v in vars(rooms).values() if isinstance(v, SharedRateLimit)]
    return [(lim.kind, lim.per_s, lim.burst, 1.0) for lim in found]


LIMITS = _room_limits()


def test_the_room_limits_are_read_from_the_rooms():
    """Every room limit is here, and the joins' limit lets a school behind one address in (200 phones
    within a minute) while room creation stays a handful per address."""
    kinds = {kind: (per_s, burst) for kind, per_s, burst, _ in LIMITS}
    assert {"roomjoin", "roomnew", "roomwrong", "roomwrongall", "roomans"} <= set(kinds)
    per_s, burst = kinds["roomjoin"]
    assert burst + 60 * per_s >= 200
    per_s, burst = kinds["roomnew"]
    assert burst + 60 * per_s < 5


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("kind", "per_s", "burst", "cost"), LIMITS, ids=[x[0] for x in LIMITS])
def test_two_replicas_on_one_store_share_one_allowance(kind, per_s, burst, cost):
    clock = Clock()
    common = MemoryStore(clock=clock)  # what two replicas share (with Redis: tests/test_server_redis.py)
    one, two = (SharedRateLimit(common, kind, per_s, burst) for _ in range(2))
    taken = sum((one if i % 2 else two).allow("10.0.0.7", cost) for i in range(int(burst) * 2))
    assert taken == burst, f"{kind}: two replicas gave {taken} at once, the allowance is {burst}"
    assert not one.allow("10.0.0.7", cost) and not two.allow("10.0.0.7", cost)
    assert one.allow("10.0.0.8", cost), "another name has its own bucket"
    clock.now += cost / per_s  # one attempt's worth of time
    assert two.allow("10.0.0.7", cost) and not one.allow("10.0.0.7", cost)
    # per process, as before: each replica gave its own allowance
    local = [RateLimit(per_s, burst, clock=clock) for _ in range(2)]
    assert sum(lim.allow("10.0.0.9", cost) for lim in local for _ in range(int(burst))) == 2 * burst


def test_the_shared_bucket_decides_as_the_process_bucket():
    """The same attempts, costs and pauses: identical answers from RateLimit and SharedRateLimit."""
    rng = random.Random(54)
    clock = Clock()
    mine = RateLimit(per_s=2.0, burst=12, clock=clock)
    shared = SharedRateLimit(MemoryStore(clock=clock), "joins", per_s=2.0, burst=12)
    answers = []
    for _ in range(2000):
        clock.now += rng.choice([0.0, 0.0, 0.01, 0.1, 0.5, 0.7, 3.0])
        name, cost = rng.choice(["a", "b", "c"]), rng.choice([1.0, 1.0, 2.0, 10.0])
        answers.append((mine.allow(name, cost), shared.allow(name, cost)))
    assert all(a == b for a, b in answers)
    assert 0.2 < sum(a for a, _ in answers) / len(answers) < 0.95  # both answers occur


class Unreachable(MemoryStore):
    def rate(self, key, per_s, burst, cost=1.0):
        return None  # what RedisStore answers while Redis is down


def test_an_unreachable_store_falls_back_to_a_limited_bucket_of_this_process():
    clock = Clock()
    limit = SharedRateLimit(Unreachable(clock=clock), "joins", per_s=2.0, burst=5, clock=clock)
    assert [limit.allow("x") for _ in range(7)] == [True] * 5 + [False] * 2  # limited, never open
    assert limit.fallbacks == 7
    clock.now += 0.5
    assert limit.allow("x") and not limit.allow("x")


def test_names_reach_the_store_hashed_and_expire_when_full_again():
    clock = Clock()
    store = MemoryStore(clock=clock)
    limit = SharedRateLimit(store, "wrong", per_s=0.2, burst=10)
    limit.allow("203.0.113.5")
    (key,) = store._rates
    assert "203.0.113.5" not in key and key.startswith("ase:v1:rate:wrong:")
    with pytest.raises(ValueError):
        SharedRateLimit(store, "Bad kind!", 1.0, 1.0)
    clock.now += 5.0  # one token's time: the bucket is full again, the name counts as new
    assert [limit.allow("203.0.113.5") for _ in range(11)] == [True] * 10 + [False]


def test_the_memory_store_keeps_a_bounded_number_of_names(monkeypatch):
    from server import store as store_module

    monkeypatch.setattr(store_module, "MEMORY_RATES", 50)
    clock = Clock()
    store = MemoryStore(clock=clock)
    limit = SharedRateLimit(store, "joins", per_s=1.0, burst=3)
    for i in range(500):
        limit.allow(f"name{i}")
    assert len(store._rates) <= 51
