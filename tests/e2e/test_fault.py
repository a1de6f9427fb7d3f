"""End-to-end faults: jobs/local.sh in file mode on 2 CPU ranks.

- A benchmark rank that hangs (SIGSTOP right after it says it is ready) is quarantined past
  its deadline; its task goes to the other rank; the run completes with one row per
  candidate, the quarantine in /rank_events and an outcome file that says "complete".
- SIGUSR1 to the coordinator mid-run stops it for a requeue: exit 75, outcome "stopped";
  the same command with --resume completes, every candidate logged exactly once.
- In serve mode SIGUSR1 refuses new batches (503, retry after the restart), finishes or fails
  the rest, exits 75; after a restart with --resume a retry is answered, each candidate once.

Only processes this test started are signalled: the rank's pid comes from its own "ready"
line on the stderr of the local.sh this test runs, and is checked to descend from it (and,
before the final SIGKILL, to be the same process: its start time).
"""
import collections
import json
import os
import pathlib
import signal
import subprocess
import threading
import time

import h5py

REPO = pathlib.Path(__file__).resolve().parents[2]
LOCAL_SH = REPO / "jobs" / "local.sh"
SAMPLES = REPO / "train_bridge" / "samples" / "dgemm-256.jsonl"
# Short limits: a rank's task limit is 5 + 4 + 10 s (checks), its deadline that + 3 s.
BENCH_OPTIONS = ["--", "--compile-timeout", "5", "--run-timeout", "4", "--warmup-s", "0.05",
                 "--time-cap-s", "0.3", "--peak-margin", "0"]


def decode(value):
    return value.decode() if isinstance(value, bytes) else value


def write_inputs(tmp_path, lines):
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("".join(SAMPLES.read_text().splitlines(keepends=True)[:lines]))
    ids = [json.loads(line)["id"] for line in candidates.read_text().splitlines()]
    config = tmp_path / "coordinator.ini"
    config.write_text("rank-deadline-margin-s = 3\nstop-grace-s = 30\nseed = 11\n")
    return candidates, config, ids


def process_start_time(pid):
    """Field 22 of /proc/PID/stat (clock ticks since boot), or None when it is gone."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def descends_from(pid, ancestor):
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


class LocalRun:
    """jobs/local.sh in its own session; stdout and stderr collected line by line."""

    def __init__(self, tmp_path, candidates, config, *extra):
        env = dict(os.environ, HPCREWARD_BIN=os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))
        self.out = tmp_path / "run"
        self.process = subprocess.Popen(
            [str(LOCAL_SH), "--candidates", str(candidates), "--np", "2", "--out", str(self.out),
             "--config", str(config), *extra, *BENCH_OPTIONS],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        self.stdout, self.stderr = [], []
        self.changed = threading.Condition()
        self.readers = [threading.Thread(target=self._read, args=(stream, lines), daemon=True)
                        for stream, lines in ((self.process.stdout, self.stdout), (self.process.stderr, self.stderr))]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, lines):
        for line in stream:
            with self.changed:
                lines.append(line)
                self.changed.notify_all()

    def wait_for_line(self, lines, predicate, timeout):
        """The first line for which predicate(line) is true, waiting at most `timeout` s."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for line in lines:
                    if predicate(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise AssertionError(f"no such line; so far:\n{''.join(self.stdout)}\n{''.join(self.stderr)}")
                self.changed.wait(min(left, 0.5))

    def finish(self, timeout):
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)  # our own session: local.sh, mpirun, ranks
            self.process.wait()
            raise AssertionError(f"local.sh ran past {timeout} s:\n{''.join(self.stdout)}\n{''.join(self.stderr)}")
        for reader in self.readers:
            reader.join(timeout=10)
        return code

    def output(self):
        return "".join(self.stdout) + "".join(self.stderr)


def bench_pid(run, rank):
    """The pid a benchmark rank of this run printed in its ready line, checked to be ours."""
    line = run.wait_for_line(run.stderr, lambda l: l.startswith(f"[bench {rank}] ready on "), timeout=120)
    pid = int(line.split("(pid ", 1)[1].split(",", 1)[0])
    assert descends_from(pid, run.process.pid), f"pid {pid} is not a process of this run"
    assert b"hpcreward-bench" in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    return pid


def read_log(path):
    with h5py.File(path, "r", swmr=True) as log:
        rows = [{name: decode(row[name]) for name in log["rewards"].dtype.names} for row in log["rewards"][()]]
        events = [{name: decode(e[name]) for name in log["rank_events"].dtype.names} for e in log["rank_events"][()]]
        schema = int(log.attrs["schema_version"])
    return rows, events, schema


def test_a_hung_rank_is_quarantined_and_the_run_completes(tmp_path):
    candidates, config, ids = write_inputs(tmp_path, 7)
    started = time.monotonic()
    run = LocalRun(tmp_path, candidates, config)
    stopped_pid, stopped_since = None, None
    try:
        stopped_pid = bench_pid(run, 1)
        stopped_since = process_start_time(stopped_pid)
        os.kill(stopped_pid, signal.SIGSTOP)  # hangs without dying: only a deadline notices
        code = run.finish(timeout=150)
    finally:
        # The stopped rank must not outlive the test, whatever happened (MPI_Abort normally
        # takes it along); only if it is still the process we stopped.
        if stopped_pid is not None and process_start_time(stopped_pid) == stopped_since:
            os.kill(stopped_pid, signal.SIGKILL)
        if run.process.poll() is None:
            os.killpg(run.process.pid, signal.SIGKILL)
    elapsed = time.monotonic() - started
    output = run.output()
    assert code == 0, output
    outcome = json.loads((run.out / "coordinator.outcome.json").read_text())
    assert outcome["outcome"] == "complete" and outcome["exit_code"] == 0, outcome
    assert outcome["rows_in_log"] == outcome["rows_written"] == len(ids), outcome
    assert [lost["rank"] for lost in outcome["lost_ranks"]] == [1], outcome
    assert "no answer for" in outcome["lost_ranks"][0]["reason"]

    rows, events, schema = read_log(run.out / "rewards.h5")
    assert schema == 7
    assert collections.Counter(row["candidate_id"] for row in rows) == collections.Counter(ids), \
        "every candidate has exactly one row"
    assert len(events) == 1, events
    event = events[0]
    assert event["rank"] == 1 and event["event"] == "quarantined" and event["host"], event
    assert "deadline 22 s (task limit 19 s + margin 3 s)" in event["reason"], event
    assert "sent to other ranks" in event["reason"], event
    assert "quarantined: rank 1 on" in output
    assert "benchmark rank lost" in output, "the end-of-run summary names the lost rank"
    assert "MPI_Abort" in output
    assert elapsed < 120, f"took {elapsed:.0f} s"

    summary = subprocess.run([str(pathlib.Path(os.environ.get("HPCREWARD_BIN", REPO / "build" / "bin"))
                                  / "hpcreward-results"), "summary", str(run.out / "rewards.h5")],
                             capture_output=True, text=True, check=True).stdout
    assert "1 benchmark rank lost" in summary and "quarantined" in summary, summary


def test_sigusr1_stops_for_a_requeue_and_resume_completes(tmp_path):
    candidates, config, ids = write_inputs(tmp_path, 13)
    run = LocalRun(tmp_path, candidates, config)
    try:
        run.wait_for_line(run.stdout, lambda l: l.startswith(f"[2/{len(ids)}]"), timeout=120)
        pid = int((run.out / "coordinator.pid").read_text())
        assert descends_from(pid, run.process.pid), "coordinator.pid names a process of this run"
        os.kill(pid, signal.SIGUSR1)  # what Slurm sends (--signal=USR1@...) before the time limit
        code = run.finish(timeout=150)
    finally:
        if run.process.poll() is None:
            os.killpg(run.process.pid, signal.SIGKILL)
    output = run.output()
    assert code == 75, output
    outcome = json.loads((run.out / "coordinator.outcome.json").read_text())
    assert outcome["outcome"] == "stopped" and outcome["exit_code"] == 75, outcome
    assert "SIGUSR1" in outcome["message"] and "--resume" in outcome["message"], outcome
    assert outcome["lost_ranks"] == []
    first_rows, _, _ = read_log(run.out / "rewards.h5")
    assert 2 <= len(first_rows) < len(ids), "stopped before the end"
    assert outcome["rows_in_log"] == len(first_rows)
    assert len({row["candidate_id"] for row in first_rows}) == len(first_rows)

    resumed = LocalRun(tmp_path, candidates, config, "--resume")
    code = resumed.finish(timeout=150)
    assert code == 0, resumed.output()
    outcome = json.loads((run.out / "coordinator.outcome.json").read_text())
    assert outcome["outcome"] == "complete", outcome
    assert outcome["rows_written"] == len(ids) - len(first_rows)
    rows, events, _ = read_log(run.out / "rewards.h5")
    assert collections.Counter(row["candidate_id"] for row in rows) == collections.Counter(ids), \
        "every candidate exactly once across the two runs"
    assert events == []


def test_serve_mode_sigusr1_exits_75_and_a_retry_after_the_restart_is_answered(tmp_path):
    from corpus import GOOD_IKJ
    from test_serve import Coordinator, read_rows

    config = tmp_path / "coordinator.ini"
    config.write_text("rank-deadline-margin-s = 3\nstop-grace-s = 30\n")
    run_dir = tmp_path / "run"
    first = {"batch_id": "a", "wait": False,
             "candidates": [{"id": f"g{i}", "problem": "dgemm-256", "source": GOOD_IKJ + f"// g{i}\n"}
                            for i in range(6)]}  # distinct: identical ones would be measured once
    second = {"batch_id": "b", "wait": True,
              "candidates": [{"id": "h0", "problem": "dgemm-256", "source": GOOD_IKJ + "// h0\n"}]}
    coordinator = Coordinator(run_dir, "--config", str(config))
    try:
        status, body = coordinator.request("POST", "/v1/batches", first)
        assert status == 202, body
        deadline = time.monotonic() + 120
        while body["state"] != "running" or body["done"] < 1:  # the signal comes mid-batch
            assert time.monotonic() < deadline and body["state"] in ("queued", "running"), body
            time.sleep(0.05)
            status, body = coordinator.request("GET", "/v1/batches/a")
        assert descends_from(coordinator.info["pid"], coordinator.process.pid)
        os.kill(coordinator.info["pid"], signal.SIGUSR1)
        # Refused (503: retry after the restart), or, when it slipped in before the coordinator
        # saw the signal (it looks every 250 ms), failed with the same advice; never scored.
        # (Had the grace already ended, the endpoint would be gone: a connection error, which
        # clients retry too; the batch in flight keeps it up here.)
        status, body = coordinator.request("POST", "/v1/batches", second)
        assert (status == 503 and "requeue" in body["error"] and "retry after it restarts" in body["error"]) or \
            (status == 503 and "retry it after the coordinator restarts" in body["error"]), (status, body)
        output, _ = coordinator.process.communicate(timeout=150)
    finally:
        if coordinator.process.poll() is None:
            coordinator.process.kill()
            coordinator.process.communicate()
    assert coordinator.process.returncode == 75, output
    outcome = json.loads((run_dir / "coordinator.outcome.json").read_text())
    assert outcome["outcome"] == "stopped" and "SIGUSR1" in outcome["message"], outcome
    assert not (run_dir / "coordinator.json").exists(), "the rendezvous no longer points at a dead endpoint"
    logged = [row["candidate_id"] for row in read_rows(run_dir / "rewards.h5")]
    assert "h0" not in logged and 1 <= len(logged) < 6 and set(logged) <= {f"g{i}" for i in range(6)}, logged

    restarted = Coordinator(run_dir, "--config", str(config), "--resume")
    try:
        status, body = restarted.request("POST", "/v1/batches", dict(first, wait=True))
        assert status == 200 and [r["id"] for r in body["results"]] == [f"g{i}" for i in range(6)], body
        status, body = restarted.request("POST", "/v1/batches", second)
        assert status == 200 and body["results"][0]["status"] == "ok", body
        code, output = restarted.stop()
    finally:
        if restarted.process.poll() is None:
            restarted.process.kill()
            restarted.process.communicate()
    assert code == 0, output
    assert json.loads((run_dir / "coordinator.outcome.json").read_text())["outcome"] == "complete"
    rows = [row["candidate_id"] for row in read_rows(run_dir / "rewards.h5")]
    assert collections.Counter(rows) == collections.Counter([f"g{i}" for i in range(6)] + ["h0"]), rows
