"""rank_figures.py's arithmetic on hand-written rows: each kind's span and rate, and a figure
judged against its target."""
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
