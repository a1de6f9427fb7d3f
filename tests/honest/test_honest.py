"""The honest corpus through the real pipeline (jobs/local.sh): every case must score `ok`.

A refused honest idiom is a wrong reward as much as an accepted attack, so this is the
counterpart of tests/adversarial. All cases go through one run, in one batch, each in the
stage its `// stage:` line names. The time limits are generous and the peak guard is off, so
that a loaded machine can turn neither a slow case into a timeout nor a fast one into
`forbidden`: what is asserted is what the checks decide, not how busy the machine is.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import warnings

import h5py
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from case_header import read_case_header  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
CASES_DIR = HERE / "cases"
# Stages the coordinator skips on a host without AVX-512 (they require it or compile with
# -mavx512*; docs/guide.md "Stages and quality-diversity"): their lines get constraint_violation there.
AVX512_STAGES = {"avx512", "blocking"}
# --peak-margin 0: the ceiling a fast honest case is held to is measured at rank start, so a
# start on a busy machine lowers it (tests/bench_node has the guard's own tests).
BENCH_OPTIONS = ["--warmup-s", "0.02", "--time-cap-s", "0.2",
                 "--time-limit-factor", "20000", "--time-limit-floor-s", "30", "--run-timeout", "60",
                 "--peak-margin", "0"]


def read_cases():
    cases = []
    for path in sorted(CASES_DIR.glob("*.c")):
        source = path.read_text()
        meta = read_case_header(source, ("stage", "problem", "idioms"))
        assert "stage" in meta, f"{path.name} has no '// stage:' line"
        cases.append({"id": path.stem, "problem": meta.get("problem", "dgemm-256"),
                      "stage": meta["stage"], "source": source})
    return cases


def host_has_avx512():
    return " avx512f" in pathlib.Path("/proc/cpuinfo").read_text()


def decode(value):
    return value.decode() if isinstance(value, bytes) else value


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("honest")
    cases = read_cases()
    candidates = tmp / "honest.jsonl"
    candidates.write_text("".join(json.dumps(case) + "\n" for case in cases))
    bin_dir = os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin"))
    # gemm-kinds: dgemm-256 as the default catalog has it, and the transposed and batched kinds.
    command = [str(REPO / "jobs" / "local.sh"), "--candidates", str(candidates), "--np", "2",
               "--problems", "gemm-kinds", "--seed", "11", "--out", str(tmp / "run"), "--", "--workdir", str(tmp / "work"),
               *BENCH_OPTIONS]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200,
                            env=dict(os.environ, HPCREWARD_BIN=bin_dir))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    with h5py.File(tmp / "run" / "rewards.h5", "r", swmr=True) as log:
        rows = [{name: decode(row[name]) for name in log["rewards"].dtype.names}
                for row in log["rewards"][()]]
    return {"cases": cases, "rows": {row["candidate_id"]: row for row in rows}}


def test_corpus_covers_every_stage():
    stages = {case["stage"] for case in read_cases()}
    assert {"o0", "o3", "openmp", "avx512", "blocking"} <= stages


def test_every_honest_case_scores_ok(run):
    avx512 = host_has_avx512()
    failures, skipped = [], []
    for case in run["cases"]:
        row = run["rows"].get(case["id"])
        if row is None:
            failures.append(f"{case['id']}: no row")
            continue
        if not avx512 and case["stage"] in AVX512_STAGES:
            # The coordinator refuses the stage before any rank sees the case: nothing about
            # the idioms was checked, so say so rather than pass silently.
            skipped.append(case["id"])
            if row["status"] != "constraint_violation" or "does not support" not in row["reason"]:
                failures.append(f"{case['id']}: {row['status']} ({row['reason']}), want the stage refused as unsupported")
            continue
        if row["status"] != "ok" or row["stage"] != case["stage"]:
            failures.append(f"{case['id']} (stage {case['stage']}): {row['status']} in stage {row['stage']} "
                            f"({row['reason']})")
    if skipped:
        warnings.warn(f"no AVX-512 on this host: {len(skipped)} cases not checked ({', '.join(skipped)})")
    assert not failures, "\n".join(failures)
