"""hpcreward-results rescore: a log's rows in another reward mode, from the GFLOPS and yardsticks
every row keeps (docs/problems.md, reward modes)."""
import csv
import io
import math

from conftest import results


def rescored(log, mode):
    run = results("rescore", log, "--mode", mode)
    assert run.returncode == 0, run.stderr
    return list(csv.DictReader(io.StringIO(run.stdout)))


def test_ok_rows_earn_their_gflops_over_the_yardstick_and_failures_keep_their_reward(run_log):
    rows = rescored(run_log, "speedup:openblas")
    assert len(rows) == 40
    seen_ok = seen_failure = False
    for index, row in enumerate(rows):
        reward = float(row["reward_speedup:openblas"])
        if row["status"] == "ok":
            seen_ok = True
            assert math.isclose(reward, float(row["gflops"]) / (8.0 + index % 2)), row
        else:
            seen_failure = True
            assert reward == float(row["reward"]), row
    assert seen_ok and seen_failure


def test_fraction_takes_the_best_yardstick_and_gflops_gives_back_the_gflops(run_log):
    by_speedup = rescored(run_log, "speedup:openblas")
    by_fraction = rescored(run_log, "fraction")  # OpenBLAS is the only one a CPU rank measures
    assert [row["reward_fraction"] for row in by_fraction] == [row["reward_speedup:openblas"] for row in by_speedup]
    for row in rescored(run_log, "gflops"):
        assert float(row["reward_gflops"]) == (float(row["gflops"]) if row["status"] == "ok" else float(row["reward"]))


def test_a_yardstick_no_rank_measured_is_nan_and_an_unknown_mode_is_refused(run_log):
    for row in rescored(run_log, "speedup:cublas"):
        if row["status"] == "ok":
            assert math.isnan(float(row["reward_speedup:cublas"]))
    run = results("rescore", run_log, "--mode", "speedup:mkl")
    assert run.returncode == 2
    assert "openblas, cublas, cublaslt" in run.stderr
