"""End-to-end serve mode: jobs/local.sh --serve with 2 benchmark ranks, driven over HTTP.

A trainer's view: wait for DIR/coordinator.json, read the token, POST batches, retry them,
speak OpenRLHF's /get_reward, then SIGTERM the coordinator and read the log back.
"""
import hashlib
import json
import os
import pathlib
import signal
import subprocess
import time
import urllib.error
import urllib.request

import h5py
import pytest

from corpus import GOOD_IKJ, SIG

REPO = pathlib.Path(__file__).resolve().parents[2]
LOCAL_SH = REPO / "jobs" / "local.sh"
BENCH_OPTIONS = ["--", "--run-timeout", "4", "--warmup-s", "0.05", "--time-cap-s", "0.3"]


def decode(value):
    return value.decode() if isinstance(value, bytes) else value


def read_rows(log_path):
    with h5py.File(log_path, "r", swmr=True) as log:
        rewards = log["rewards"][()]
        return [{name: decode(row[name]) for name in rewards.dtype.names} for row in rewards]


class Coordinator:
    def __init__(self, run_dir, *extra):
        self.run_dir = run_dir
        env = dict(os.environ, HPCREWARD_BIN=os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))
        rendezvous = run_dir / "coordinator.json"
        # local.sh removes a stale one too, but only once it runs: this check could come first.
        rendezvous.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [str(LOCAL_SH), "--serve", "--np", "2", "--out", str(run_dir), *extra, *BENCH_OPTIONS],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        deadline = time.time() + 120
        while not rendezvous.exists():
            if self.process.poll() is not None:
                pytest.fail(f"local.sh --serve exited {self.process.returncode}:\n{self.process.stdout.read()}")
            if time.time() > deadline:
                self.process.kill()
                pytest.fail("no coordinator.json after 120 s")
            time.sleep(0.2)
        self.info = json.loads(rendezvous.read_text())
        self.token = pathlib.Path(self.info["token_file"]).read_text().strip()

    def request(self, method, path, body=None, token=None, raw=None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.info["url"] + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Authorization", "Bearer " + (self.token if token is None else token))
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def stop(self, via_local_sh=False):
        # SIGTERM to the coordinator, or to local.sh, which passes it on to the coordinator.
        os.kill(self.process.pid if via_local_sh else self.info["pid"], signal.SIGTERM)
        output, _ = self.process.communicate(timeout=120)
        return self.process.returncode, output


BATCH = {
    "batch_id": "step-1",
    "wait": True,
    "candidates": [
        {"id": "good", "problem": "dgemm-256", "source": GOOD_IKJ, "stage": "o3"},
        {"id": "fenced", "problem": "dgemm-256", "completion": "Here:\n```c\n" + GOOD_IKJ + "```\n"},
        {"id": "broken", "problem": "dgemm-256", "source": SIG + "{ int x = }"},
        {"id": "prose", "problem": "dgemm-256", "completion": "Tile it for matmul."},
        {"id": "bad-stage", "problem": "dgemm-256", "source": GOOD_IKJ, "stage": "warp-speed"},
    ],
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("serve") / "run"
    coordinator = Coordinator(run_dir)
    yield coordinator
    if coordinator.process.poll() is None:
        coordinator.process.kill()
        coordinator.process.communicate()


def test_rendezvous_and_token_file(served):
    info = served.info
    assert info["url"].startswith("http://") and int(info["url"].rsplit(":", 1)[1]) > 0
    assert info["pid"] > 0
    assert oct(os.stat(info["token_file"]).st_mode & 0o777) == "0o600"
    assert len(served.token) == 64
    status, body = served.request("GET", "/v1/batches/none", token="wrong")
    assert status == 403 and "token" in body["error"]


def test_batch_retry_conflict_and_openrlhf(served):
    log_path = served.run_dir / "rewards.h5"
    status, first = served.request("POST", "/v1/batches", BATCH)
    assert status == 200, first
    results = {r["id"]: r for r in first["results"]}
    assert [r["id"] for r in first["results"]] == [c["id"] for c in BATCH["candidates"]]
    assert results["good"]["status"] == "ok" and results["good"]["reward"] == results["good"]["gflops"] > 0
    assert results["good"]["stage"] == "o3"
    assert results["fenced"]["status"] == "ok" and results["fenced"]["stage"] == "o0"
    assert results["broken"]["status"] == "compile_error" and results["broken"]["reward"] == -10
    assert results["prose"]["status"] == "format_error"
    assert results["bad-stage"]["status"] == "format_error" and "unknown stage" in results["bad-stage"]["reason"]
    rows_after_first = len(read_rows(log_path))
    assert rows_after_first == len(BATCH["candidates"])

    status, again = served.request("POST", "/v1/batches", BATCH)
    assert status == 200 and again == first
    status, progress = served.request("GET", "/v1/batches/step-1")
    assert status == 200 and progress["state"] == "done" and progress["done"] == progress["total"] == 5
    assert progress["results"] == first["results"]
    assert len(read_rows(log_path)) == rows_after_first, "a retry logs nothing"

    changed = json.loads(json.dumps(BATCH))
    changed["candidates"][0]["source"] += "\n"
    status, body = served.request("POST", "/v1/batches", changed)
    assert status == 409 and "batch_id" in body["error"]

    status, body = served.request("POST", "/v1/batches", raw=b"{not json")
    assert status == 400 and "not valid JSON" in body["error"]

    # 202 + progress.
    status, accepted = served.request("POST", "/v1/batches",
                                      {"batch_id": "async", "candidates": [{"id": "x", "source": GOOD_IKJ}]})
    assert status in (200, 202), accepted
    for _ in range(600):
        status, progress = served.request("GET", "/v1/batches/async")
        if progress["state"] == "done":
            break
        time.sleep(0.1)
    assert progress["state"] == "done" and progress["results"][0]["status"] == "ok"

    reward_request = {"query": ["prompt\n```c\n" + GOOD_IKJ + "```", "no code"], "prompts": ["p", "p"],
                      "labels": ["dgemm-256", ""]}
    status, rewards = served.request("POST", "/get_reward", reward_request)
    assert status == 200, rewards
    assert len(rewards["rewards"]) == 2 and rewards["rewards"][0] > 0 and rewards["rewards"][1] == -10
    rows_before_retry = len(read_rows(log_path))
    status, again = served.request("POST", "/get_reward", reward_request)
    assert status == 200 and again == rewards
    assert len(read_rows(log_path)) == rows_before_retry
    body = json.dumps(reward_request).encode()
    batch_id = "openrlhf-" + hashlib.sha256(body).hexdigest()[:16]
    rows = read_rows(log_path)
    assert sorted(r["candidate_id"] for r in rows if r["batch_id"] == batch_id) == ["q0", "q1"]


def test_sigterm_finishes_and_exits_zero(served):
    status, _ = served.request("POST", "/v1/batches",
                               {"batch_id": "last", "candidates": [{"id": "y", "source": GOOD_IKJ}], "wait": False})
    assert status in (200, 202)
    code, output = served.stop()
    assert code == 0, output
    assert "stopping" in output
    rows = read_rows(served.run_dir / "rewards.h5")
    assert [r["status"] for r in rows if r["batch_id"] == "last"] == ["ok"], "accepted work is finished"
    ids = [(r["batch_id"], r["candidate_id"]) for r in rows]
    assert len(ids) == len(set(ids)), "no candidate is logged twice"
    assert len(rows) == 5 + 1 + 2 + 1
    assert not (served.run_dir / "coordinator.json").exists()


def test_resume_answers_logged_batches_from_the_log(served):
    assert served.process.returncode == 0
    rows_before = read_rows(served.run_dir / "rewards.h5")
    coordinator = Coordinator(served.run_dir, "--resume")
    try:
        status, body = coordinator.request("POST", "/v1/batches", BATCH)
        assert status == 200, body
        logged = {r["candidate_id"]: r for r in rows_before if r["batch_id"] == "step-1"}
        for result in body["results"]:
            assert result["reward"] == logged[result["id"]]["reward"]
            assert result["status"] == logged[result["id"]]["status"]
        changed = json.loads(json.dumps(BATCH))
        changed["batch_id"] = "async"
        status, body = coordinator.request("POST", "/v1/batches", changed)
        assert status == 409, body
    finally:
        code, output = coordinator.stop(via_local_sh=True)
    assert code == 0, output
    assert len(read_rows(served.run_dir / "rewards.h5")) == len(rows_before)


def wait_for_rows(log_path, count, process):
    deadline = time.time() + 120
    while time.time() < deadline:
        assert process.poll() is None, process.stdout.read()
        try:
            if len(read_rows(log_path)) >= count:
                return
        except (OSError, KeyError):
            pass
        time.sleep(0.05)
    pytest.fail(f"fewer than {count} rows after 120 s")


def test_a_batch_cut_short_by_a_crash_scores_only_what_is_missing(tmp_path):
    run_dir = tmp_path / "run"
    coordinator = Coordinator(run_dir)
    batch = {"batch_id": "cut", "candidates": [{"id": f"c{i}", "source": GOOD_IKJ + f"// {i}\n"} for i in range(8)]}
    status, _ = coordinator.request("POST", "/v1/batches", batch)
    assert status == 202
    wait_for_rows(run_dir / "rewards.h5", 2, coordinator.process)
    os.kill(coordinator.info["pid"], signal.SIGKILL)  # as a node failure would
    coordinator.process.communicate(timeout=120)
    logged = {r["candidate_id"]: r for r in read_rows(run_dir / "rewards.h5")}
    assert 2 <= len(logged) < 8

    resumed = Coordinator(run_dir, "--resume")
    try:
        assert resumed.info["pid"] != coordinator.info["pid"]
        status, body = resumed.request("POST", "/v1/batches", dict(batch, wait=True))
        assert status == 200, body
        assert [r["id"] for r in body["results"]] == [c["id"] for c in batch["candidates"]]
        assert all(r["status"] == "ok" for r in body["results"]), body
        for result in body["results"]:
            if result["id"] in logged:
                assert result["reward"] == logged[result["id"]]["reward"], "logged rows are the answer"
    finally:
        code, output = resumed.stop()
    assert code == 0, output
    rows = read_rows(run_dir / "rewards.h5")
    assert sorted(r["candidate_id"] for r in rows) == sorted(c["id"] for c in batch["candidates"])
