"""rank_figures.py's arithmetic on hand-written rows: each kind's span and rate, and a figure
judged against its target; gpu_corpus.scaling_runs on runs faked in place of the pipeline."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from rank_figures import judged, spans  # noqa: E402


def test_spans_are_per_kind_of_rank_from_the_first_row_to_the_last():
    rows = [{"device": "cuda:0 NVIDIA H200", "time": 10.0}, {"device": "cpu", "time": 11.0},
            {"device": "cuda:1 NVIDIA H200", "time": 14.0}, {"device": "cpu", "time": 12.0},
            {"device": "cuda:0 NVIDIA H200", "time": 12.0}]
    got = spans(rows)
    assert got["cuda"] == {"rows": 3, "first_to_last_s": 4.0, "per_s": 0.5}
    assert got["cpu"] == {"rows": 2, "first_to_last_s": 1.0, "per_s": 1.0}


def test_a_single_row_has_no_rate():
    assert spans([{"device": "cpu", "time": 3.0}])["cpu"]["per_s"] is None


def test_figures_are_judged_each_way_and_a_missing_one_is_not_measured():
    assert judged("scaling", 1.95, 1.9, True)["verdict"] == "met"
    assert judged("scaling", 1.71, 1.9, True)["verdict"] == "not met"
    assert judged("mixed", 1.19, 1.25, False)["verdict"] == "met"
    assert judged("mixed", 1.30, 1.25, False)["verdict"] == "not met"
    assert judged("mixed", None, 1.25, False)["verdict"] == "not measured"


def test_scaling_runs_compare_one_rank_with_g(tmp_path, monkeypatch):
    import gpu_corpus

    def fake_pipeline(out, candidates, np_, gpu_args, gpus=1):
        (out / "rewards.h5").parent.mkdir(parents=True)
        (out / "rewards.h5").write_text(str(gpus))
        return 0, 10.0

    def fake_rows(log):  # one rank: a row a second; two ranks: each a row a second, side by side
        gpus = int(log.read_text())
        return [{"status": "ok", "device": f"cuda:{i % gpus}", "time": float(i // gpus)} for i in range(8)]

    monkeypatch.setattr(gpu_corpus, "run_pipeline", fake_pipeline)
    monkeypatch.setattr(gpu_corpus, "read_rows", fake_rows)
    report, failed = gpu_corpus.scaling_runs(tmp_path, 8, 2, [])
    assert not failed
    assert report["runs"][1]["steady_per_s"] == 7 / 7
    assert report["runs"][2]["steady_per_s"] == 7 / 3
    assert report["ranks_ratio"] == 2.0
    assert report["with_startup_ratio"] == 1.0
    assert (tmp_path / "scaling.jsonl").read_text().count("\n") == 8
    assert report["runs"][2]["vs_one_rank"] == 7 / 3


def test_scaling_runs_on_four_gpus_record_two_ranks_too(tmp_path, monkeypatch):
    import gpu_corpus
    counts = []

    def fake_pipeline(out, candidates, np_, gpu_args, gpus=1):
        counts.append(gpus)
        (out / "rewards.h5").parent.mkdir(parents=True)
        (out / "rewards.h5").write_text(str(gpus))
        return 0, 10.0

    def fake_rows(log):  # G ranks side by side, a row a second each
        gpus = int(log.read_text())
        return [{"status": "ok", "device": f"cuda:{i % gpus}", "time": float(i // gpus)} for i in range(16)]

    monkeypatch.setattr(gpu_corpus, "run_pipeline", fake_pipeline)
    monkeypatch.setattr(gpu_corpus, "read_rows", fake_rows)
    report, failed = gpu_corpus.scaling_runs(tmp_path, 16, 4, [])
    assert not failed and counts == [1, 2, 4]
    assert report["runs"][2]["vs_one_rank"] == (15 / 7) / (15 / 15)
    assert report["steady_ratio"] == (15 / 3) / (15 / 15)
