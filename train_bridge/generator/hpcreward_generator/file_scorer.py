"""A scorer in file mode: each batch through `jobs/local.sh`, read back from rewards.h5.

All batches of one scorer go into one run directory: the batch is appended to one candidate
file and local.sh goes on with the run (`--resume`), which scores only the new lines. So the
coordinator keeps the problem's stage, its ladder advances and its archive across batches, as a
long-running pipeline would; only its start (ranks measuring OpenBLAS and cuBLAS) is paid per
batch. With `gpus` the run has GPU ranks too, for CUDA problems (`jobs/local.sh --gpus`).
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[3]


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


class FileScorer:
    def __init__(self, work_dir: str | os.PathLike | None = None, np: int = 2, gpus: int = 0,
                 ladder: str | None = None, seed: int | None = None, bin_dir: str | None = None,
                 bench_options: list[str] | None = None, timeout_s: float = 1800, repo: pathlib.Path = REPO,
                 retries: int = 2):
        self.retries = retries
        self.work_dir = pathlib.Path(work_dir or tempfile.mkdtemp(prefix="hpcreward-generator-"))
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.candidates = self.work_dir / "candidates.jsonl"
        self.run_dir = self.work_dir / "run"
        self.np = np
        self.gpus = gpus
        self.ladder = ladder
        self.seed = seed
        self.bin_dir = bin_dir or os.environ.get("HPCREWARD_BIN")
        self.bench_options = bench_options if bench_options is not None else ["--warmup-s", "0.05", "--time-cap-s", "0.3"]
        self.timeout_s = timeout_s
        self.repo = pathlib.Path(repo)
        self.batches = 0
        self.current_stages: dict[str, str] = {}  # problem -> its stage after the last batch
        self.hosts: list[dict] = []
        self.seconds: list[float] = []

    def __call__(self, batch: list[dict]) -> list[dict]:
        import time
        self.batches += 1
        batch_id = f"gen-{self.batches:04d}"
        with open(self.candidates, "a") as out:
            for candidate in batch:
                line = {"id": candidate["id"], "batch_id": batch_id, "source": candidate["source"]}
                for key in ("problem", "stage"):
                    if candidate.get(key):
                        line[key] = candidate[key]
                out.write(json.dumps(line) + "\n")
        env = dict(os.environ)
        if self.bin_dir:
            env["HPCREWARD_BIN"] = str(self.bin_dir)
        started = time.monotonic()
        # A failed run is tried again, going on with what it logged (--resume scores only the
        # lines without a row): a rank lost mid-run, or local.sh edited while bash read it.
        for attempt in range(1 + self.retries):
            command = [str(self.repo / "jobs" / "local.sh"), "--candidates", str(self.candidates),
                       "--np", str(self.np), "--out", str(self.run_dir)]
            if self.gpus:
                command += ["--gpus", str(self.gpus)]
            if (self.run_dir / "rewards.h5").exists():
                command.append("--resume")
            elif self.seed is not None:
                command += ["--seed", str(self.seed)]
            if self.ladder:
                command += ["--ladder", str(self.ladder)]
            command += ["--", *self.bench_options]
            result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=self.timeout_s)
            (self.work_dir / f"local-{self.batches:04d}-{attempt}.log").write_text(result.stdout + result.stderr)
            if result.returncode == 0:
                break
            time.sleep(1 + attempt)
        else:
            raise RuntimeError(f"local.sh exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        self.seconds.append(time.monotonic() - started)
        rows, events, self.hosts = read_log(self.run_dir / "rewards.h5")
        wanted = {c["id"] for c in batch}
        results = [{"id": r["candidate_id"], "status": r["status"], "reward": float(r["reward"]),
                    "gflops": float(r["gflops"]), "stage": r["stage"], "reason": r["reason"],
                    "techniques": r["techniques"], "loop_order": r["loop_order"], "tile_sizes": r["tile_sizes"]}
                   for r in rows if r["candidate_id"] in wanted]
        # Each problem's stage for its next batch: the `to` of its last stage event, else the
        # stage of its last row.
        for problem in {c.get("problem") or "dgemm-256" for c in batch}:
            moves = [e for e in events if e["problem"] == problem]
            scored = [r for r in rows if r["problem"] == problem and r["stage"]]
            if moves:
                self.current_stages[problem] = moves[-1]["to"]
            elif scored:
                self.current_stages[problem] = scored[-1]["stage"]
        return results


def read_log(path) -> tuple[list[dict], list[dict], list[dict]]:
    """(rewards rows, stage events, hosts) of a rewards.h5."""
    import h5py

    def table(log, name):
        if name not in log:
            return []
        data = log[name][()]
        return [{field: _text(row[field]) for field in data.dtype.names} for row in data]

    with h5py.File(path, "r", swmr=True) as log:
        hosts = json.loads(_text(log.attrs["hosts_json"])) if "hosts_json" in log.attrs else []
        return table(log, "rewards"), table(log, "stage_events"), hosts
