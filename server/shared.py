"""The server's shared objects, one of each per process (one process serves every session).

- `RESULTS`: core results, computed once per distinct call for every session (server.results);
- `HEAVY`: heavy jobs (the cost page's live timing, the training page) one at a time, in the
  order they asked; `LIGHT`: every other computation, at most two at a time (server.gates);
- `RUNS`: the script runs in progress (server.runs);
- `give_back_memory()`: malloc_trim after a computation, at most every few seconds; `JANITOR`:
  the clean-up once the server is quiet, which the other caches join (`JANITOR.evictors`);
- on first import, once per process and before the sessions' threads allocate much: glibc's
  allocator (server.memory) and the numerical libraries' thread pools (server.threads) set.

Pages reach these through pages/ui/compute.py; app.py's router marks each run's start and end.
"""

from __future__ import annotations

from server.gates import Gate
from server.memory import IdleJanitor, MemoryTrim, configure_allocator
from server.results import ResultStore
from server.runs import RunRegistry
from server.threads import configure_threads, torch_threads_at_load

HEAVY_SLOTS = 1             # heavy jobs running at once on one server
LIGHT_SLOTS = 2             # other computations running at once: the server's cores

configure_allocator()
configure_threads()
torch_threads_at_load()
RESULTS = ResultStore()
HEAVY = Gate(HEAVY_SLOTS)
LIGHT = Gate(LIGHT_SLOTS)
RUNS = RunRegistry()
give_back_memory = MemoryTrim()
JANITOR = IdleJanitor(RUNS, MemoryTrim(every=0.0), evictors=[RESULTS.drop_unused])
