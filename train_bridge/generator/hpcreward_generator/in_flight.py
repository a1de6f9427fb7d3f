"""Searches that each keep batches of their own in flight on a served pipeline (asynchronous,
or steady-state, MAP-Elites).

A served coordinator scores the batches it has accepted together: its ranks take tasks from any
of them in order of arrival, and each batch is answered when its own candidates are done
(coordinator/README.md, "Batches in flight"). So each search sends its own batches: in one
shared batch a C search's answer would wait for the CUDA search's slowest candidate, and the
other way round. And each keeps up to `in_flight` batches out, so that while one batch's last
candidates run, the next one's fill the free slots of the ranks. A search makes a batch when
one of its slots frees, from its archive as it stands then, and files each batch's results as
that batch comes back.

One lock guards every search and the after-batch callback: making a batch, filing results and
writing reports happen one at a time; only the scoring calls (the HTTP requests) overlap.
"""
from __future__ import annotations

import queue
import threading
from typing import Callable

from .map_elites import MapElites, ScoreFn

DEFAULT_IN_FLIGHT = 2


def run_searches_in_flight(searches: list[tuple[MapElites, int]], score: ScoreFn, in_flight: int = DEFAULT_IN_FLIGHT,
                           after_batch: Callable[[MapElites], None] | None = None) -> None:
    """Runs each (search, evaluations) until it has that many evaluations, each search with up
    to `in_flight` batches of its own out at once (1: one at a time), independently of the
    others. `score` is called from several threads at once (ServedScorer keeps one client per
    thread); its `current_stages`, when it has them, are read when a batch's results are filed.
    `after_batch(search)` is called, under the lock, once a batch's results are filed (the
    command writes that search's report then, so a run cut short keeps what it found).

    The first error of any slot (a pipeline that stopped answering) is raised here, and no slot
    makes another batch; batches still out are given up (their searches' reports do not count
    them, and a resumed search makes new ones)."""
    if in_flight < 1:
        raise ValueError(f"in_flight is {in_flight}: a search needs at least one batch in flight")
    lock = threading.Lock()
    stop = threading.Event()
    ended: queue.Queue = queue.Queue()  # one entry per slot: None, or the error that ended it
    slots = [threading.Thread(target=_slot, args=(search, wanted, score, lock, stop, after_batch, ended),
                              name=f"{search.problem}-slot{index}", daemon=True)
             for search, wanted in searches for index in range(in_flight)]
    for slot in slots:
        slot.start()
    for _ in slots:
        error = ended.get()
        if error is not None:
            stop.set()
            raise error


def _slot(search: MapElites, wanted: int, score: ScoreFn, lock: threading.Lock, stop: threading.Event,
          after_batch, ended: queue.Queue) -> None:
    """One of a search's slots: make a batch, have it scored, file it; again until the search's
    evaluations are made or covered by its other slots' batches."""
    try:
        while not stop.is_set():
            with lock:
                batch = _next_batch(search, score, wanted)
            if batch is None:
                break
            answer = score([candidate for candidate, _ in batch])
            with lock:
                # Read now, after the answer: never older than what an earlier filing used.
                current_stages = dict(getattr(score, "current_stages", None) or {})
                search.take_results(batch, {result["id"]: result for result in answer}, current_stages)
                if after_batch:
                    after_batch(search)
    except BaseException as error:  # to the caller's thread, which raises it
        ended.put(error)
        return
    ended.put(None)


def _next_batch(search: MapElites, score: ScoreFn, wanted: int):
    """The search's next batch, or None when its evaluations are done or already out. Made for
    the newest stage the scorer knows: another slot's answer may have brought one after this
    search's last filing."""
    count = min(search.batch_size, wanted - search.evaluations - search.outstanding())
    if count <= 0:
        return None
    search.follow_reported_stage(dict(getattr(score, "current_stages", None) or {}))
    return search.next_batch(count)
