"""What is not a usable reward log, or a usable call, gets a clear message, never a traceback."""
import os
import subprocess
import sys

import h5py
import numpy as np

from conftest import REPO, results


def refused(done, code, *phrases):
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    for phrase in phrases:
        assert phrase in done.stderr, done.stderr


def test_a_file_that_is_not_hdf5(tmp_path):
    text = tmp_path / "notes.h5"
    text.write_text("not a log\n")
    for command in (["plot", text, "--out", tmp_path / "p"], ["report", text], ["watch", text]):
        refused(results(*command), 1, "not an HDF5 file, so not a reward log")


def test_an_hdf5_file_that_is_not_a_reward_log(tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["data"] = np.arange(3)
    refused(results("report", other), 1, "not a reward log (no schema_version attribute or /rewards")


def test_a_missing_log_and_a_missing_option(tmp_path):
    refused(results("report", tmp_path / "absent.h5"), 2, "absent.h5: no such file")
    refused(results("plot", tmp_path / "absent.h5"), 2, "the following arguments are required: --out")
    refused(results("watch", tmp_path / "absent.h5", "--interval", "0"), 2)


def test_an_output_folder_that_cannot_be_made(run_log, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    refused(results("plot", run_log, "--out", blocker / "plots"), 1, "file/plots")


def test_without_matplotlib_it_says_what_to_install(run_log, tmp_path):
    # A package named matplotlib that cannot be imported, found before the real one.
    fake = tmp_path / "fake" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('hidden by the test', name='matplotlib')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "fake"))
    refused(results("report", run_log, "--out", tmp_path / "r.html", env=env), 1, "matplotlib is missing",
            "python3-matplotlib")
    assert not (tmp_path / "r.html").exists()


def test_the_package_lives_where_the_tool_looks():
    assert (REPO / "results" / "python" / "hpcreward_report" / "__main__.py").is_file()


def run_package(*args, **env_changes):
    """python3 -m hpcreward_report ARGS, as pip installs it: no hpcreward-results on PATH and no
    HPCREWARD_RESULTS unless `env_changes` give them."""
    env = {key: value for key, value in os.environ.items() if key != "HPCREWARD_RESULTS"}
    env.update(PYTHONPATH=str(REPO / "results" / "python"), PATH="/usr/bin:/bin", **env_changes)
    return subprocess.run([sys.executable, "-m", "hpcreward_report", *map(str, args)], capture_output=True,
                          text=True, timeout=120, env=env)


def test_without_hpcreward_results_the_report_says_how_to_get_it(run_log, tmp_path):
    refused(run_package("report", run_log, "--out", tmp_path / "r.html"), 1, "hpcreward-results not found",
            "cmake --build build", "HPCREWARD_RESULTS")
    refused(run_package("watch", run_log), 1, "hpcreward-results not found")
    refused(run_package("report", run_log, "--out", tmp_path / "r.html", HPCREWARD_RESULTS=str(tmp_path / "absent")),
            1, "is not an executable file")
    assert not (tmp_path / "r.html").exists()


def test_a_results_tool_of_another_summary_format_is_named(run_log, tmp_path):
    other = tmp_path / "hpcreward-results"
    other.write_text('#!/bin/sh\necho \'{"format": 99}\'\n')
    other.chmod(0o755)
    refused(run_package("report", run_log, "--out", tmp_path / "r.html", HPCREWARD_RESULTS=str(other)), 1,
            "summary format 99", "this report reads format 1", "same checkout")


def test_a_log_cut_short_says_it_may_be_damaged(run_log, tmp_path):
    cut = tmp_path / "cut.h5"
    data = run_log.read_bytes()
    cut.write_bytes(data[:len(data) // 2])
    refused(results("report", cut, "--out", tmp_path / "r.html"), 1, "HDF5 cannot open it", "may be damaged")
    assert not (tmp_path / "r.html").exists()
