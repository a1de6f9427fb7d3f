"""A scorer over a served pipeline (jobs/local.sh --serve), through train_bridge/python's client.

After each batch the scorer asks the coordinator for every problem's current stage (GET
/v1/stages, published after the batch's advances and before its results), so the next batch
of each search is written for the stage it will be scored in. The run directory, when given
and on this machine, is read only for the ranks' BLAS ceilings (the report's baseline: OpenBLAS
on CPU ranks, cuBLAS on GPU ranks).
"""
from __future__ import annotations

import pathlib


class ServedScorer:
    def __init__(self, client, run_dir: str | pathlib.Path | None = None):
        self.client = client
        self.run_dir = pathlib.Path(run_dir) if run_dir else None
        self.current_stages: dict[str, str] = {}
        self.hosts: list[dict] = []

    def refresh_stages(self) -> dict[str, str]:
        """Each problem's stage now: a search that starts on a resumed run starts where its
        problem's ladder stands, not on its first stage (whose candidates the pipeline would
        refuse as constraint violations)."""
        self.current_stages = self.client.stages()
        return self.current_stages

    def __call__(self, batch: list[dict]) -> list[dict]:
        results = self.client.score_candidates(batch)
        self.current_stages = self.client.stages()
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
