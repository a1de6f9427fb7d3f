"""hpcreward-results watch follows a live log to its end."""
import subprocess
import time

from conftest import tool, write_log, writer

ROWS = 40


def test_watch_follows_a_live_run_to_its_end(tmp_path):
    log = tmp_path / "rewards.h5"
    run = subprocess.Popen([writer(), str(log), str(ROWS), "150"], stdout=subprocess.PIPE, text=True)
    try:
        assert run.stdout.readline().strip() == "first row"
        started = time.monotonic()
        watch = subprocess.run([tool(), "watch", str(log), "--interval", "0.3"], capture_output=True, text=True,
                               timeout=60)
        watched_s = time.monotonic() - started
        assert run.poll() is not None, "watch ended while the writer was still running"
    finally:
        run.kill()
        run.wait()
    assert watch.returncode == 0, watch.stderr
    heads = [line for line in watch.stdout.splitlines() if line.startswith("hpcreward watch")]
    counts = [int(line.split(":")[1].split(";")[0]) for line in watch.stdout.splitlines()
              if line.startswith("candidates scored:")]
    assert len(heads) >= 3 and "(writer running)" in heads[0], watch.stdout
    assert "(the writer closed the log)" in heads[-1]
    assert counts == sorted(counts) and counts[0] < ROWS and counts[-1] == ROWS
    last = watch.stdout.rsplit("hpcreward watch", 1)[1]
    assert "dgemm-256  o3" in last and "sgemm-512  o3" in last
    assert "o0 -> o3  best_gflops  best 2.5 GFLOPS >= 2" in last
    assert "status mix: ok=" in last and "wrong_answer=" in last
    assert "\x1b[2J" not in watch.stdout  # a trainer's candidate id cannot drive the terminal
    assert watched_s > 2.0  # it followed the writer's 6 s, rather than reading a finished log


def test_watch_of_a_finished_log_shows_it_once_and_ends(run_log):
    done = subprocess.run([tool(), "watch", str(run_log)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("hpcreward watch") == 1
    assert "(the writer closed the log)" in done.stdout and "candidates scored: 40;" in done.stdout


def test_watch_of_a_killed_runs_log_says_its_writer_died(tmp_path):
    log = write_log(tmp_path / "killed.h5", 10, die=True)
    done = subprocess.run([tool(), "watch", str(log)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "its writer died" in done.stdout and "candidates scored: 10;" in done.stdout
