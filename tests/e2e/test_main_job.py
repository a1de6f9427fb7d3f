"""End-to-end: the README's main job, jobs/local.sh with its default source, the built-in
generator, scoring through a served pipeline and climbing the ladder."""
import json
import os
import pathlib
import subprocess

import h5py

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))


def test_generator_scores_its_evaluations_and_climbs(tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, HPCREWARD_BIN=str(BIN))
    result = subprocess.run([str(REPO / "jobs" / "local.sh"), "--np", "2", "--evaluations", "48", "--out", str(out),
                             "--", "--warmup-s", "0.05", "--time-cap-s", "0.3"],
                            capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    with h5py.File(out / "rewards.h5", "r", swmr=True) as log:
        rows = log["rewards"][()]
        events = log["stage_events"][()]
    assert len(rows) == 48
    ok = rows[rows["status"] == b"ok"]
    assert len(ok) >= 40, {s.decode() for s in rows["status"]}
    assert all(t for t in ok["techniques"]), "every verified candidate carries its descriptor"
    assert len(events) >= 1 and events[0]["from"] == b"o0", "the generator climbs out of o0"
    report = json.loads((out / "generator.json").read_text())
    assert report["best"]["gflops"] == max(ok["gflops"])
    assert not (out / "coordinator.json").exists(), "the endpoint is gone once the job ended"
    assert "stage: dgemm-256 o0 -> o3" in result.stdout
