"""A scorer over a served pipeline (jobs/local.sh --serve), through train_bridge/python's client.

After each batch the scorer asks the coordinator for the problem's current stage (GET
/v1/stages, published after the batch's advances and before its results), so the next batch
is written for the stage it will be scored in. The run directory, when given and on this
machine, is read only for the ranks' OpenBLAS peaks (the report's baseline).
"""
from __future__ import annotations

import pathlib


class ServedScorer:
    def __init__(self, client, stage: str | None = None, run_dir: str | pathlib.Path | None = None):
        self.client = client
        self.stage = stage
        self.run_dir = pathlib.Path(run_dir) if run_dir else None
        self.current_stage: str | None = stage
        self.hosts: list[dict] = []

    @property
    def blas_peak_gflops_f64(self) -> float | None:
        peaks = [h.get("peak_gflops_f64") for h in self.hosts if h.get("peak_gflops_f64")]
        return max(peaks) if peaks else None

    def __call__(self, batch: list[dict]) -> list[dict]:
        if self.stage:
            batch = [dict(candidate, stage=self.stage) for candidate in batch]
        results = self.client.score_candidates(batch)
        if not self.stage:
            problem = next((c.get("problem") for c in batch if c.get("problem")), "dgemm-256")
            self.current_stage = self.client.stages().get(problem)
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
