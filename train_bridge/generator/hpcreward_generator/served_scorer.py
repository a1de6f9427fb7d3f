"""A scorer over a served pipeline (jobs/local.sh --serve), through train_bridge/python's client.

The HTTP answers carry each candidate's stage but not the problem's stage after the batch: a
ladder advance is seen one batch late, and that batch, made for the old stage, is wasted (the
default ladder's neighbouring stages share no valid candidate). When the run directory is on
this machine (a rendezvous given as a directory or its coordinator.json), the scorer reads the
problem's stage events from the live log (DIR/rewards.h5, SWMR) after each batch instead.
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
            self.current_stage = self._logged_stage(problem)
        return results

    def _logged_stage(self, problem: str) -> str | None:
        if self.run_dir is None or not (self.run_dir / "rewards.h5").exists():
            return None
        try:
            from .file_scorer import read_log
            rows, events, self.hosts = read_log(self.run_dir / "rewards.h5")
        except Exception:  # no h5py, or the writer is between states: follow the results instead
            return None
        moves = [e for e in events if e["problem"] == problem]
        if moves:
            return moves[-1]["to"]
        scored = [r for r in rows if r["problem"] == problem and r["stage"]]
        return scored[-1]["stage"] if scored else None
