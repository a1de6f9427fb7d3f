"""context_probe_report.py on lines written by hand: the steps' medians, and each timed call
classed by what of a churning child it overlapped."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from context_probe_report import overlap_class, report  # noqa: E402

MS = 1_000_000  # ns


def child(fork, context, kill, reaped):
    # fork, main, driver, context, allocation, kill, reaped (ns), user and system CPU seconds
    return f"child {fork} {fork + 1} {fork + 2 * MS} {context} {context + 1} {kill} {reaped} 0.01 0.1\n"


def test_a_call_is_classed_by_what_it_overlapped():
    kids = [(0, 1, 20 * MS, 100 * MS, 101, 150 * MS, 200 * MS)]
    assert overlap_class((10 * MS, 10.0, 5.0), kids) == "start"
    assert overlap_class((50 * MS, 10.0, 5.0), kids) == "context"
    # A window from the driver's start into the context's creation counts as the start.
    assert overlap_class((19 * MS, 2000.0, 5.0), kids) == "start"
    assert overlap_class((160 * MS, 10.0, 5.0), kids) == "teardown"
    assert overlap_class((120 * MS, 10.0, 5.0), kids) == "neither"
    # A window reaching into the teardown from before it counts as teardown.
    assert overlap_class((149 * MS, 2000.0, 5.0), kids) == "teardown"


def test_the_report_summarizes_steps_and_splits_the_churned_calls(tmp_path):
    (tmp_path / "steps-q8.txt").write_text(child(0, 162 * MS, 300 * MS, 380 * MS) * 3)
    (tmp_path / "steps-q4.txt").write_text(child(0, 97 * MS, 300 * MS, 350 * MS) * 3)
    (tmp_path / "steps-q4-beside-starts.txt").write_text(child(0, 130 * MS, 300 * MS, 360 * MS) * 3)
    (tmp_path / "timed-spin-quiet.txt").write_text("call 0 30.0 16.0\n" * 10)
    (tmp_path / "churn-spin-same-q8.txt").write_text(child(0, 100 * MS, 150 * MS, 200 * MS))
    (tmp_path / "timed-spin-same-q8.txt").write_text(
        f"call {1 * MS} 31.0 16.5\ncall {50 * MS} 40.0 18.0\ncall {120 * MS} 30.0 16.0\ncall {170 * MS} 35.0 17.0\n")
    text = report(tmp_path)
    lines = text.splitlines()
    assert lines[0] == "steps-q8: 3 contexts, creation 160.0 ms, kill to reaped 80.0 ms"
    assert lines[1] == "steps-q4-beside-starts: 3 contexts, creation 128.0 ms, kill to reaped 60.0 ms"
    assert lines[2] == "steps-q4: 3 contexts, creation 95.0 ms, kill to reaped 50.0 ms"
    assert "alone                     n=10  events 16.0 / 16.0 / 16.0" in text
    assert "same-q8  start            n=1  events 16.5" in text
    assert "same-q8  context          n=1  events 18.0" in text
    assert "same-q8  teardown         n=1  events 17.0" in text
    assert "same-q8  neither          n=1  events 16.0" in text
