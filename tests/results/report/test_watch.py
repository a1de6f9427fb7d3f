"""hpcreward-results watch follows a live log to its end."""
import subprocess

from conftest import tool, write_log, writer

ROWS, PAUSE = 40, 10


def frames(text):
    """[(head line, rows scored)] of every frame watch printed."""
    lines = text.splitlines()
    heads = [line for line in lines if line.startswith("hpcreward watch")]
    counts = [int(line.split(":")[1].split(";")[0]) for line in lines if line.startswith("candidates scored:")]
    return list(zip(heads, counts))


def test_watch_follows_a_live_run_to_its_end(tmp_path):
    log = tmp_path / "rewards.h5"
    # The writer stops after PAUSE rows until told to go on: watch's first frame is of a live run.
    run = subprocess.Popen([writer(), str(log), str(ROWS), "0", "--pause-after", str(PAUSE)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    watch = None
    try:
        assert run.stdout.readline().strip() == "first row"
        assert run.stdout.readline().strip() == "paused"
        with open(tmp_path / "watch.err", "w") as errors:
            watch = subprocess.Popen([tool(), "watch", str(log), "--interval", "0.2"], stdout=subprocess.PIPE,
                                     stderr=errors, text=True)
            first = []
            while not first or not first[-1].startswith("candidates scored:"):
                line = watch.stdout.readline()
                assert line, f"watch ended before its first frame: {(tmp_path / 'watch.err').read_text()}"
                first.append(line)
            run.stdin.write("\n")  # the writer goes on to the end and closes the log
            run.stdin.flush()
            rest = watch.stdout.read()
            assert watch.wait(timeout=60) == 0, (tmp_path / "watch.err").read_text()
        assert run.wait(timeout=60) == 0
    finally:
        for process in (run, watch):
            if process and process.poll() is None:
                process.kill()
                process.wait()
    output = "".join(first) + rest
    seen = frames(output)
    assert seen[0][1] == PAUSE and "(writer running)" in seen[0][0], output
    assert seen[-1][1] == ROWS and "(the writer closed the log)" in seen[-1][0], output
    assert [count for _, count in seen] == sorted(count for _, count in seen)
    last = output.rsplit("hpcreward watch", 1)[1]
    assert "dgemm-256  o3" in last and "sgemm-512  o3" in last
    assert "o0 -> o3  best_gflops  best 2.5 GFLOPS >= 2" in last
    assert "status mix: ok=" in last and "wrong_answer=" in last
    assert "c38?[2J<b>" in last  # a trainer's candidate id, the best of its stage, cannot drive the terminal
    assert "\x1b[2J" not in output


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
