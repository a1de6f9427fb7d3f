"""hpcreward-results plot: every PNG exists, has the documented size and real content."""
import json

import h5py

from conftest import HEIGHT_PX, WIDTH_PX, drawn_fraction, png_size, results, write_log, write_schema1_log
from hpcreward_report.log import read_log
from hpcreward_report.plot_archive import MAX_ROWS, arrange, panel_cells
from hpcreward_report.plot_progress import run_start, stage_change_marks

EXPECTED = ["gflops-dgemm-256.png", "gflops-sgemm-512.png", "reward_per_batch.png", "status_mix.png",
            "gflops_distribution.png", "archive-dgemm-256.png", "archive-sgemm-512.png", "timing_quality.png"]


def plot(log, out):
    done = results("plot", log, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_every_plot_of_a_run_is_a_drawn_png_of_the_documented_size(run_log, tmp_path):
    written = plot(run_log, tmp_path / "plots")
    assert sorted(p.rsplit("/", 1)[1] for p in written) == sorted(EXPECTED)
    for path in written:
        assert png_size(path) == (WIDTH_PX, HEIGHT_PX), path
        assert drawn_fraction(path) > 0.02, f"{path} is nearly blank"


def test_stage_changes_are_marked_when_the_events_happened(run_log):
    log = read_log(str(run_log))
    with h5py.File(run_log, "r", swmr=True) as raw:
        events = raw["stage_events"][()]
    start = run_start(log)
    for problem in ("dgemm-256", "sgemm-512"):
        marks = stage_change_marks(log, problem)
        expected = [((e["time"] - start) / 60.0, f"{e['from'].decode()} \u2192 {e['to'].decode()}")
                    for e in events if e["problem"].decode() == problem]
        assert marks == expected and len(marks) == 1
        # The writer moves each problem up just before its first o3 row.
        first_o3 = min(t for t, p, s in zip(log.rewards["time"], log.rewards["problem"], log.rewards["stage"])
                       if p == problem and s == "o3")
        assert (first_o3 - start) / 60.0 > marks[0][0]


def test_the_blas_reference_comes_from_the_ranks_of_the_problems_kind(run_log):
    log = read_log(str(run_log))
    assert log.blas_reference("dgemm-256") == [40.0, 55.0]
    assert log.blas_reference("sgemm-512") == [80.0]  # rank 2 measured no f32
    assert log.blas_reference("cuda-sgemm-4096") == []  # no GPU rank in this log
    assert log.plain_sgemm_reference("cuda-sgemm-4096") == []


def test_a_gpu_ranks_plain_sgemm_is_the_second_reference_of_cuda_sgemm(run_log):
    log = read_log(str(run_log))
    log.provenance = dict(log.provenance, hosts_json=json.dumps([
        {"kind": "cpu", "peak_gflops_f32": 80.0},
        {"kind": "gpu", "peak_gflops_f32": 360000.0, "sgemm_fp32_gflops": 51000.0},
        {"kind": "gpu", "peak_gflops_f32": 350000.0, "sgemm_fp32_gflops": 50000.0}]))
    assert log.blas_reference("cuda-sgemm-4096") == [350000.0, 360000.0]
    assert log.plain_sgemm_reference("cuda-sgemm-4096") == [50000.0, 51000.0]
    assert log.plain_sgemm_reference("cuda-hgemm-4096") == []
    assert log.plain_sgemm_reference("sgemm-512") == []


def test_a_problems_kind_comes_from_the_runs_catalog(run_log):
    log = read_log(str(run_log))
    log.provenance = dict(log.provenance, hosts_json=json.dumps([
        {"kind": "cpu", "peak_gflops_f32": 80.0},
        {"kind": "gpu", "peak_gflops_f32": 360000.0, "sgemm_fp32_gflops": 51000.0, "peak_gflops_f16": 700000.0}]),
        config_json=json.dumps({"problem_catalog": {"catalog": "kb", "problems": [
            {"id": "kb1-8-irregular", "language": "cuda", "precision": "f32", "shape": "8205x5921x2949"},
            {"id": "decode", "language": "cuda", "precision": "f16", "shape": "1x4096x4096"}]}}))
    assert log.problem_kind("kb1-8-irregular") == ("cuda", "f32")
    assert log.blas_reference("kb1-8-irregular") == [360000.0]
    assert log.plain_sgemm_reference("kb1-8-irregular") == [51000.0]
    assert log.blas_reference("decode") == [700000.0]
    assert log.problem_kind("sgemm-512") == ("c", "f32"), "ids outside the catalog: the default catalog's names"


def test_an_empty_log_gives_every_picture_with_a_notice(tmp_path):
    log = write_log(tmp_path / "empty.h5", 0)
    written = plot(log, tmp_path / "plots")
    assert [p.rsplit("/", 1)[1] for p in written] == ["reward_per_batch.png", "status_mix.png",
                                                        "gflops_distribution.png", "timing_quality.png"]
    for path in written:
        assert png_size(path) == (WIDTH_PX, HEIGHT_PX)
        assert drawn_fraction(path) > 0.002, f"{path} has not even its notice"


def test_a_schema_1_log_is_plotted_without_the_columns_it_lacks(tmp_path):
    log = write_schema1_log(tmp_path / "old.h5")
    written = plot(log, tmp_path / "plots")
    assert "archive-dgemm-256.png" in [p.rsplit("/", 1)[1] for p in written]
    for path in written:
        assert png_size(path) == (WIDTH_PX, HEIGHT_PX)


def test_a_killed_runs_log_is_plotted_as_far_as_it_got(tmp_path):
    log = write_log(tmp_path / "killed.h5", 20, die=True)
    written = plot(log, tmp_path / "plots")
    assert len(read_log(str(log)).rewards) == 20
    assert all(png_size(p) == (WIDTH_PX, HEIGHT_PX) for p in written)


def test_columns_a_later_schema_adds_are_ignored(tmp_path):
    log = write_schema1_log(tmp_path / "new.h5", schema=5, extra_columns=[("measured_as", "S16"), ("extra", "<f8")])
    written = plot(log, tmp_path / "plots")
    assert all(png_size(p) == (WIDTH_PX, HEIGHT_PX) for p in written)
    assert read_log(str(log)).schema_version == 5


def test_an_archive_panel_keeps_the_fastest_rows_when_there_are_too_many():
    niches = {f"blocking|ikj|{n}x{n}": float(n) for n in range(1, MAX_ROWS + 11)}
    cells, left_out = panel_cells(niches)
    assert left_out == 10 and len(cells) == MAX_ROWS
    assert min(cells.values()) == 11.0  # the ten slowest rows went


def test_archive_panels_are_balanced_into_columns_in_ladder_order():
    stages = ["o0", "o3", "openmp", "avx512", "blocking"]
    layout = arrange(stages, {"o0": 1, "o3": 1, "openmp": 1, "avx512": 2, "blocking": 33})
    assert layout == [["o0", "o3"], ["openmp", "avx512"], ["blocking"]]
    assert arrange(["o0"], {"o0": 4}) == [["o0"]]
