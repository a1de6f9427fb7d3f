"""suite.py --check fails when a part failed or left a figure out, and only then."""
import suite
import suite_parts

ALL = list(suite_parts.PARTS)


def good_bench():
    bench = {"mode": "check", "machine": {}, "git_revision": "x", "errors": {}}
    for _, fields in suite_parts.PARTS.values():
        bench.update({field: 1.0 for field in fields})
    return bench


def test_a_complete_bench_passes():
    assert suite.check(good_bench(), ALL) == []


def test_a_failed_part_fails_the_check():
    bench = good_bench()
    bench["errors"]["fidelity"] = "exited 1"
    assert suite.check(bench, ALL) == ["part fidelity failed: exited 1"]


def test_a_missing_figure_fails_the_check():
    bench = good_bench()
    bench["timing_cv"] = None
    assert suite.check(bench, ALL) == ["part fidelity ran but bench.json's timing_cv is not a number"]


def test_no_saturation_within_the_sweep_is_a_result_not_a_failure():
    bench = good_bench()
    bench["saturation_ranks"] = None
    assert suite.check(bench, ALL) == []


def test_parts_left_out_with_only_are_not_judged():
    bench = good_bench()
    bench["errors"]["endpoint"] = "not run (--only)"
    assert suite.check(bench, [name for name in ALL if name != "endpoint"]) == []
