"""rank_spread.py's candidates and its arithmetic on hand-written rows (no ranks started)."""
import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import rank_spread  # noqa: E402
from rank_spread import KERNELS, candidate_lines, spread  # noqa: E402


def row(kernel, copy, rank, gflops, yardstick, status="ok"):
    return {"candidate_id": f"{kernel}#{copy}", "rank": rank, "status": status, "gflops": gflops,
            "reward": gflops / yardstick, "openblas_gflops": yardstick, "time": float(copy)}


def test_every_kernel_interleaved_each_copy_a_source_of_its_own_in_a_stage_that_allows_it():
    lines = candidate_lines(3)
    assert [line["id"] for line in lines[:3]] == [f"{name}#0" for name in KERNELS]
    assert len(lines) == 9 and len({line["source"] for line in lines}) == 9
    assert {line["stage"] for line in lines if line["id"].startswith("ikj#")} == {"o3"}
    assert all(line["problem"] == "dgemm-256" and "void matmul(" in line["source"] for line in lines)


def test_across_is_the_ranks_medians_max_over_min_and_within_the_worst_ranks_rows():
    rows = [row("ikj", 0, 1, 4.0, 40), row("ikj", 1, 1, 5.0, 40), row("ikj", 2, 1, 6.0, 40),
            row("ikj", 3, 2, 8.0, 40), row("ikj", 4, 2, 8.0, 40), row("ikj", 5, 2, 8.8, 40),
            row("ikj", 6, 2, 1.0, 40, status="wrong_answer")]
    ikj = spread(rows)["ikj"]
    assert ikj["ranks"][1]["gflops_median"] == 5.0 and ikj["ranks"][2]["gflops_median"] == 8.0
    assert ikj["gflops_across"] == pytest.approx(8.0 / 5.0)
    assert ikj["fraction_across"] == pytest.approx(8.0 / 5.0) and ikj["yardstick_across"] == 1.0
    assert ikj["gflops_within"] == pytest.approx(6.0 / 4.0), "rank 1's rows, the worse of the two"
    assert ikj["ranks"][2]["rows"] == 3, "a row not ok is not a measurement"
    assert spread(rows)["ikj_avx512"]["gflops_across"] is None


def test_a_yardstick_spread_shows_in_fraction_not_in_gflops():
    rows = [row("ikj", 0, 1, 5.0, 40), row("ikj", 1, 2, 5.0, 50)]
    ikj = spread(rows)["ikj"]
    assert ikj["gflops_across"] == 1.0
    assert ikj["fraction_across"] == pytest.approx(1.25) and ikj["yardstick_across"] == pytest.approx(1.25)


def test_a_run_with_the_pipeline_faked_writes_the_report_and_fails_on_a_rank_without_a_kernel(tmp_path, monkeypatch,
                                                                                               capsys):
    def pipeline(out, candidates, np_, bin_dir):
        out.mkdir()
        (out / "rewards.h5").write_text("")
        lines = [json.loads(line) for line in candidates.read_text().splitlines()]
        rows = [row(rank_spread.kernel_of(line["id"]), i, 1 + i % 2, 10.0, 40) for i, line in enumerate(lines)]
        monkeypatch.setattr(rank_spread, "read_rows", lambda log, bin_dir: rows)
        return 0, 1.0

    monkeypatch.setattr(rank_spread, "run_pipeline", pipeline)
    monkeypatch.setattr(sys, "argv", ["rank_spread.py", "--out", str(tmp_path / "a"), "--np", "2", "--copies", "4"])
    assert rank_spread.main() == 0
    report = json.loads((tmp_path / "a" / "spread.json").read_text())
    assert report["np"] == 2 and len(report["rows"]) == 12 and report["kernels"]["ikj"]["gflops_across"] == 1.0
    assert "target across <= 1.05" in capsys.readouterr().out
    # Three copies over two ranks interleaved by three kernels: each kernel lands on one rank only.
    monkeypatch.setattr(sys, "argv", ["rank_spread.py", "--out", str(tmp_path / "b"), "--np", "2", "--copies", "1"])
    assert rank_spread.main() == 1
