"""tools/loadtest/crossing.py asks for no more classes than one address may start (server/rooms.py's
room-creation limit) and says why when asked for more."""

from __future__ import annotations

import pytest

from server.rooms import Rooms
from server.store import MemoryStore
from tools.loadtest import crossing


def test_more_classes_than_one_address_may_start_is_refused_with_the_reason(capsys):
    burst = int(Rooms(MemoryStore()).creates.burst)
    assert crossing.classes_at_once()[0] == burst
    with pytest.raises(SystemExit) as exc:
        crossing.main(["--classes", str(burst + 1), "--url", "http://127.0.0.1:9"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"--classes must be 1-{burst}" in err and "one address may start" in err
