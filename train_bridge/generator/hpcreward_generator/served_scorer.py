"""A scorer over a served pipeline (jobs/local.sh --serve), through train_bridge/python's client.

After each batch the scorer asks the coordinator for every problem's current stage (GET
/v1/stages, published after the batch's advances and before its results), so the next batch
of each search is written for the stage it will be scored in. The run directory, when given
and on this machine, is read only for the ranks' BLAS ceilings (the report's baseline: OpenBLAS
on CPU ranks, cuBLAS on GPU ranks).

Batches in flight (in_flight.py) call the scorer from several threads at once. Each thread
then has a client of its own (`new_client`): a client's transport switches its endpoint in place
when it follows a restarted pipeline, which another thread's request must not see half done. The
stage requests are made one at a time, each replacing `current_stages` whole, so what a reader
finds there is never older than what it found before.
"""
from __future__ import annotations

import pathlib
import threading


class ServedScorer:
    def __init__(self, client, run_dir: str | pathlib.Path | None = None, new_client=None):
        """client: the calling thread's client; new_client(): a client for each other thread that
        scores (default: they share `client`, for clients that are safe to share)."""
        self.client = client
        self.run_dir = pathlib.Path(run_dir) if run_dir else None
        self.current_stages: dict[str, str] = {}
        self.hosts: list[dict] = []
        self._new_client = new_client
        self._clients = threading.local()
        self._clients.client = client
        self._stages_lock = threading.Lock()

    def _client(self):
        if getattr(self._clients, "client", None) is None:
            self._clients.client = self._new_client() if self._new_client else self.client
        return self._clients.client

    def refresh_stages(self) -> dict[str, str]:
        """Each problem's stage now: a search that starts on a resumed run starts where its
        problem's ladder stands, not on its first stage (whose candidates the pipeline would
        refuse as constraint violations)."""
        with self._stages_lock:
            self.current_stages = self._client().stages()
        return self.current_stages

    def __call__(self, batch: list[dict]) -> list[dict]:
        client = self._client()
        results = client.score_candidates(batch)
        with self._stages_lock:  # one at a time: a later answer never replaced by an earlier one
            self.current_stages = client.stages()
            self._read_hosts()
        return results

    def _read_hosts(self) -> None:
        if self.hosts or self.run_dir is None or not (self.run_dir / "rewards.h5").exists():
            return
        try:
            from .file_scorer import read_log
            _, _, self.hosts = read_log(self.run_dir / "rewards.h5")
        except Exception:  # no h5py, or the writer is between states: no baseline in the report
            self.hosts = []
