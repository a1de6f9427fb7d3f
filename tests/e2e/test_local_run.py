"""End-to-end: jobs/local.sh with 2 benchmark ranks over good and broken candidates.

Checks every row of the HDF5 log (through h5py, as users read it), the schema that
h5dump shows, the run directory contract, and the launcher's errors.
"""
import collections
import json
import os
import pathlib
import subprocess
import sys

import h5py
import pytest

from corpus import CASES, MALFORMED_LINES

REPO = pathlib.Path(__file__).resolve().parents[2]
# The built executables: ctest sets HPCREWARD_BIN to its build tree's; by hand, build/bin.
BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))
LOCAL_SH = REPO / "jobs" / "local.sh"
REQUIRED_FIELDS = ["candidate_id", "batch_id", "problem", "stage", "status", "reward", "gflops",
                   "median_s", "cv", "source_sha256", "rank", "host", "time"]
# Short limits keep the suite quick on a 2-core machine; the timeout case needs the deadline.
BENCH_OPTIONS = ["--", "--run-timeout", "4", "--warmup-s", "0.05", "--time-cap-s", "0.3"]


def run_local(tmp_path, candidates, *extra, check=True):
    env = dict(os.environ, HPCREWARD_BIN=str(BIN))
    command = [str(LOCAL_SH), "--candidates", str(candidates), "--np", "2", "--out", str(tmp_path / "run"),
               *extra]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    if check:
        assert result.returncode == 0, f"local.sh failed:\n{result.stdout}\n{result.stderr}"
    return result


def write_corpus(path):
    lines = []
    for identifier, _, stage, fields in CASES:
        lines.append(json.dumps({"id": identifier, "problem": "dgemm-256", "stage": stage, **fields}))
    lines.extend(MALFORMED_LINES)
    path.write_text("\n".join(lines) + "\n")
    return len(CASES) + 1  # line numbers of the malformed lines start after the cases


def decode(value):
    return value.decode() if isinstance(value, bytes) else value


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("e2e")
    candidates = tmp_path / "corpus.jsonl"
    first_malformed = write_corpus(candidates)
    result = run_local(tmp_path, candidates, "--seed", "1234", *BENCH_OPTIONS)
    return tmp_path / "run", result, first_malformed


def read_rows(log_path):
    with h5py.File(log_path, "r", swmr=True) as log:
        rewards = log["rewards"][()]
        return [{name: decode(row[name]) for name in rewards.dtype.names} for row in rewards]


def test_every_candidate_has_exactly_the_expected_row(corpus_run):
    run_dir, _, first_malformed = corpus_run
    rows = read_rows(run_dir / "rewards.h5")
    assert len(rows) == len(CASES) + len(MALFORMED_LINES)
    statuses = collections.defaultdict(list)
    for row in rows:
        statuses[row["candidate_id"]].append(row["status"])
    for identifier, expected, _, _ in CASES:
        acceptable = expected if isinstance(expected, tuple) else (expected,)
        assert any(status in acceptable for status in statuses[identifier]), \
            f"{identifier}: got {statuses[identifier]}, want {expected}"
    assert sorted(statuses["duplicate"]) == ["format_error", "ok"]
    for offset in range(len(MALFORMED_LINES)):
        assert statuses[f"line-{first_malformed + offset}"] == ["format_error"]


def test_rows_carry_rewards_reasons_and_measurements(corpus_run):
    run_dir, _, _ = corpus_run
    rows = {row["candidate_id"]: row for row in read_rows(run_dir / "rewards.h5")}
    good = rows["good-ikj-o3"]
    assert good["reward"] == good["gflops"] > 0
    assert good["median_s"] > 0 and good["min_s"] <= good["median_s"] and good["reps"] >= 1
    assert good["rank"] in (1, 2) and good["host"]
    assert good["device"] == "cpu"
    assert good["openblas_gflops"] > 0 and good["cublas_gflops"] == good["cublaslt_gflops"] == 0, \
        "a CPU rank's yardstick for the problem, OpenBLAS at its shape"
    assert rows["segfault"]["openblas_gflops"] > 0, "on every row its rank measured, whatever the status"
    assert len(good["source_sha256"]) == 64
    assert good["batch_id"] == "corpus"
    expected_penalty = {"format_error": -10, "forbidden": -100, "compile_error": -10, "timeout": -10,
                        "runtime_error": -10, "wrong_answer": -10, "constraint_violation": -50}
    for row in rows.values():
        if row["status"] != "ok":
            assert row["reward"] == expected_penalty[row["status"]], row
            assert row["reason"], f"{row['candidate_id']} has no reason"
    assert "SIGSEGV" in rows["segfault"]["reason"]
    assert "unknown problem" in rows["unknown-problem"]["reason"]
    assert rows["unknown-problem"]["device"] == "", "the coordinator decided it: no device"
    assert rows["unknown-problem"]["openblas_gflops"] == 0, "and no yardstick"


def test_sources_are_kept_once_by_hash(corpus_run):
    run_dir, _, _ = corpus_run
    with h5py.File(run_dir / "rewards.h5", "r", swmr=True) as log:
        hashes = [decode(h) for h in log["sources"]["sha256"]]
        assert len(hashes) == len(set(hashes))
        rows = log["rewards"][()]
        used = {decode(h) for h in rows["source_sha256"] if decode(h)}
        assert used <= set(hashes)
        entry = log["sources"][hashes.index(decode(rows[0]["source_sha256"]) or hashes[0])]
        text = bytes(log["source_text"][entry["offset"]:entry["offset"] + entry["length"]]).decode()
        assert "matmul" in text


def test_provenance_attributes(corpus_run):
    run_dir, _, _ = corpus_run
    with h5py.File(run_dir / "rewards.h5", "r", swmr=True) as log:
        attributes = {key: decode(value) for key, value in log.attrs.items()}
    assert int(attributes["schema_version"]) == 7
    assert attributes["reward_mode"] == "gflops"
    assert attributes["seed"] == "1234"
    assert json.loads(attributes["config_json"])["seed"] == "1234"
    hosts = json.loads(attributes["hosts_json"])
    assert [host["rank"] for host in hosts] == [1, 2]
    assert all(host["kind"] == "cpu" and host["slots"] == 1 and "gpu" in host for host in hosts), hosts
    for key in ("git_revision", "compiler_version", "blas_version", "mpi_version", "hdf5_version", "created_utc"):
        assert attributes[key], key


def test_h5dump_shows_the_schema(corpus_run):
    run_dir, _, _ = corpus_run
    header = subprocess.run(["h5dump", "-H", str(run_dir / "rewards.h5")], capture_output=True,
                            text=True, check=True).stdout
    for field in REQUIRED_FIELDS:
        assert f'"{field}"' in header, field
    for dataset in ("/rewards", "sources", "source_text"):
        assert dataset.strip("/") in header


def test_run_directory_and_summary(corpus_run):
    run_dir, result, _ = corpus_run
    assert (run_dir / "coordinator.pid").read_text().strip().isdigit()
    outcome = json.loads((run_dir / "coordinator.outcome.json").read_text())
    assert outcome["exit_code"] == 0 and outcome["outcome"] == "complete", outcome
    assert outcome["rows_in_log"] == outcome["rows_written"] == len(CASES) + len(MALFORMED_LINES)
    assert outcome["lost_ranks"] == []
    with h5py.File(run_dir / "rewards.h5", "r", swmr=True) as log:
        assert len(log["rank_events"]) == 0, "no rank was lost"
    assert "deadline: cpu ranks 1,2 must answer within" in result.stdout
    assert "dgemm-256" in result.stdout and "total" in result.stdout.lower()
    assert f"[{len(CASES) + len(MALFORMED_LINES)}/{len(CASES) + len(MALFORMED_LINES)}]" in result.stdout
    # The run ends with its report (hpcreward-results report, results/README.md).
    assert result.stdout.rstrip().endswith(f"local.sh: report: {run_dir}/report.html"), result.stdout[-500:]
    assert '<section id="plots">' in (run_dir / "report.html").read_text(encoding="utf-8")


def test_refuses_to_overwrite_a_log(corpus_run, tmp_path):
    run_dir, _, _ = corpus_run
    result = subprocess.run([str(LOCAL_SH), "--out", str(run_dir)], capture_output=True, text=True)
    assert result.returncode == 2
    assert "already exists" in result.stderr


def test_bad_option_says_what_to_fix(tmp_path):
    result = subprocess.run([str(LOCAL_SH), "--np", "zero", "--out", str(tmp_path)], capture_output=True,
                            text=True)
    assert result.returncode == 2
    assert "--np must be a positive integer" in result.stderr


def test_unknown_stage_option_fails_cleanly(tmp_path):
    candidates = tmp_path / "one.jsonl"
    candidates.write_text(json.dumps({"id": "a", "source": "void matmul(){}"}) + "\n")
    result = run_local(tmp_path, candidates, "--stage", "nope", check=False)
    assert result.returncode != 0
    assert "--stage nope is not a stage" in result.stderr
    # The job script learns why from the outcome file, whatever mpirun's status says.
    outcome = json.loads((tmp_path / "run" / "coordinator.outcome.json").read_text())
    assert outcome["exit_code"] == 2 and outcome["outcome"] == "config_error", outcome
    assert "--stage nope is not a stage" in outcome["message"]


def test_shipped_samples_are_up_to_date():
    subprocess.run([sys.executable, str(REPO / "train_bridge" / "samples" / "make_samples.py"), "--check"],
                   check=True)
