"""End-to-end repeated candidates: jobs/local.sh with 2 CPU ranks over a small
GRPO-like corpus where a quarter of the candidates repeat an earlier one.

Identical candidates are measured once: in a batch they share the first one's measurement, in a
later batch they are answered from it, each row naming the row it reuses (measured_as,
measured_batch) with the same reward. After a stop and --resume, the log rebuilds the cache.
"""
import json
import subprocess

import h5py

from corpus import GOOD_IKJ, SIG
from test_local_run import BENCH_OPTIONS, BIN, decode, run_local


def variant(i):
    return GOOD_IKJ + f"// variant {i}\n"


# (id, batch, stage, source): b1 has 6 distinct candidates and 2 repeats of them; b2 has 2
# repeats of b1's (one of them a wrong answer), one in another stage (measured again), one new.
FIRST = [
    ("v0", "b1", "o3", variant(0)), ("v1", "b1", "o3", variant(1)), ("v2", "b1", "o3", variant(2)),
    ("wrong", "b1", "o3", SIG + "{ for (int i = 0; i < m * n; ++i) C[i] = 0; }"),
    ("broken", "b1", "o3", SIG + "{ int x = }"),
    ("v0-again", "b1", "o3", variant(0)), ("v3", "b1", "o3", variant(3)),
    ("broken-again", "b1", "o3", SIG + "{ int x = }"),
]
LATER = [
    ("v1-later", "b2", "o3", variant(1)), ("wrong-later", "b2", "o3", SIG + "{ for (int i = 0; i < m * n; ++i) C[i] = 0; }"),
    ("v2-o0", "b2", "o0", variant(2)), ("v4", "b2", "o3", variant(4)),
]
REUSED = {"v0-again": ("v0", "b1"), "broken-again": ("broken", "b1"), "v1-later": ("v1", "b1"),
          "wrong-later": ("wrong", "b1")}


def write(path, cases):
    path.write_text("".join(json.dumps({"id": i, "batch_id": b, "problem": "dgemm-256", "stage": s, "source": src}) + "\n"
                            for i, b, s, src in cases))
    return path


def read_rows(run_dir):
    with h5py.File(run_dir / "rewards.h5", "r", swmr=True) as log:
        rewards = log["rewards"][()]
        return {decode(r["candidate_id"]): {name: decode(r[name]) for name in rewards.dtype.names} for r in rewards}


def check(rows):
    assert len(rows) == len(FIRST) + len(LATER)
    for identifier, (origin, batch) in REUSED.items():
        row, first = rows[identifier], rows[origin]
        assert row["measured_as"] == origin and row["measured_batch"] == batch, row
        assert row["reward"] == first["reward"] and row["status"] == first["status"], (row, first)
        assert row["median_s"] == first["median_s"] and row["seed"] == first["seed"]
        assert row["measurement_key"] == first["measurement_key"] and len(row["measurement_key"]) == 64
    for identifier in set(rows) - set(REUSED):
        assert rows[identifier]["measured_as"] == "", identifier
    assert rows["v2-o0"]["measurement_key"] != rows["v2"]["measurement_key"], "another stage: measured again"
    assert rows["v1-later"]["status"] == "ok" and rows["wrong-later"]["status"] == "wrong_answer"
    assert rows["broken-again"]["status"] == "compile_error"


def test_a_quarter_repeats_and_each_repeat_reuses_its_first_measurement(tmp_path):
    candidates = write(tmp_path / "grpo.jsonl", FIRST + LATER)
    result = run_local(tmp_path, candidates, "--seed", "7", *BENCH_OPTIONS)
    assert "(measured as v0 of b1)" in result.stdout, result.stdout
    check(read_rows(tmp_path / "run"))
    summary = subprocess.run([str(BIN / "hpcreward-results"), "summary",
                              str(tmp_path / "run" / "rewards.h5")], capture_output=True, text=True)
    lines = summary.stdout.splitlines()
    header, total = lines[0], lines[-1]
    assert summary.returncode == 0 and "reused" in header, summary.stdout
    assert total.split()[:4] == ["total", "12", "8", "4"], summary.stdout  # candidates, ok, reused


def test_a_resumed_run_rebuilds_the_cache_from_the_log(tmp_path):
    # The first run scores b1 only; the resumed one the whole file: b2's repeats of b1's
    # candidates are answered from the log's rows, never sent to a rank.
    run_local(tmp_path, write(tmp_path / "first.jsonl", FIRST), "--seed", "7", *BENCH_OPTIONS)
    result = run_local(tmp_path, write(tmp_path / "all.jsonl", FIRST + LATER), "--resume", *BENCH_OPTIONS)
    assert "(measured as v1 of b1)" in result.stdout, result.stdout
    check(read_rows(tmp_path / "run"))


def test_zero_entries_measures_every_candidate(tmp_path):
    config = tmp_path / "coordinator.ini"
    config.write_text("repeat-cache-entries = 0\n")
    result = run_local(tmp_path, write(tmp_path / "grpo.jsonl", FIRST), "--config", str(config), *BENCH_OPTIONS)
    assert "measured as" not in result.stdout
    rows = read_rows(tmp_path / "run")
    assert all(row["measured_as"] == "" for row in rows.values()), rows
    assert rows["v0-again"]["measurement_key"] == rows["v0"]["measurement_key"], "the key is logged anyway"
