"""A batch submitted without waiting: poll it while the trainer generates the next one."""
import time

from .errors import BatchFailed, BatchTimeout, ProtocolError


def check_results(batch_id, candidates, results):
    """The results in candidate order, one per candidate; ProtocolError when the server broke the contract."""
    if not isinstance(results, list) or len(results) != len(candidates):
        got = len(results) if isinstance(results, list) else type(results).__name__
        raise ProtocolError(f"batch {batch_id}: expected {len(candidates)} results, got {got}")
    for candidate, result in zip(candidates, results):
        if not isinstance(result, dict) or result.get("id") != candidate["id"]:
            raise ProtocolError(f"batch {batch_id}: result {result!r:.200} does not answer candidate "
                                f"{candidate['id']} (results must come in candidate order)")
    return results


class BatchHandle:
    """Returned by Client.submit*. done() polls once; result(timeout) polls with back-off until done.

    The batch is scored whether or not anyone waits; result() can be called again after a BatchTimeout.
    """

    def __init__(self, client, batch_id, candidates, first_answer=None,
                 poll_initial_s=0.05, poll_max_s=2.0, clock=time.monotonic, sleep=time.sleep):
        self._client = client
        self.batch_id = batch_id
        self.candidates = candidates
        self._results = None
        self._state = {"state": "queued", "done": 0, "total": len(candidates)}
        self._poll_initial_s = poll_initial_s
        self._poll_max_s = poll_max_s
        self._clock = clock
        self._sleep = sleep
        if first_answer is not None:
            self._absorb(first_answer)

    def __repr__(self):
        return f"BatchHandle({self.batch_id!r}, {self.progress()[0]}/{self.progress()[1]} done)"

    def _absorb(self, answer):
        if not isinstance(answer, dict):
            raise ProtocolError(f"batch {self.batch_id}: the status answer is not an object")
        self._state = {key: answer.get(key, self._state.get(key)) for key in ("state", "done", "total")}
        if answer.get("state") == "failed":
            raise BatchFailed(f"the coordinator could not score batch {self.batch_id}: "
                              f"{answer.get('error') or 'no reason given'}")
        if "results" in answer and (answer.get("state") in (None, "done")):
            self._results = check_results(self.batch_id, self.candidates, answer["results"])
            self._state.update(state="done", done=len(self._results), total=len(self._results))

    def poll(self):
        """One GET of the batch's state; returns it ({"state", "done", "total"})."""
        if self._results is None:
            _, answer = self._client._transport.request("GET", f"/v1/batches/{self.batch_id}")
            self._absorb(answer)
        return dict(self._state)

    def done(self):
        """True once every candidate of the batch is scored (polls the coordinator if not known yet)."""
        if self._results is None:
            self.poll()
        return self._results is not None

    def progress(self):
        """(done, total) as of the last poll."""
        return self._state.get("done") or 0, self._state.get("total") or len(self.candidates)

    def result(self, timeout=None, on_progress=None):
        """The result dicts in candidate order; raises BatchTimeout after `timeout` seconds (None: no limit)."""
        deadline = None if timeout is None else self._clock() + timeout
        delay = self._poll_initial_s
        while not self.done():
            if on_progress is not None:
                on_progress(*self.progress())
            now = self._clock()
            if deadline is not None and now >= deadline:
                done, total = self.progress()
                raise BatchTimeout(f"batch {self.batch_id} not done after {timeout} s ({done}/{total} scored); "
                                   "it goes on: call result() again")
            pause = delay if deadline is None else min(delay, max(0.0, deadline - now))
            self._sleep(pause)
            delay = min(self._poll_max_s, delay * 1.5)
        if on_progress is not None:
            on_progress(*self.progress())
        return list(self._results)

    def rewards(self, timeout=None):
        """The rewards (floats) in candidate order."""
        return [float(result["reward"]) for result in self.result(timeout)]
