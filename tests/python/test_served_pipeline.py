"""Integration: the client against a real served pipeline (jobs/local.sh --serve, 2 benchmark ranks).

Runs only when the coordinator built in HPCREWARD_BIN (default build/bin) has --serve.
The last test stops the pipeline with SIGTERM and checks that local.sh exits 0 and that the log
holds exactly one row per candidate, retries included.
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import time
import uuid

import pytest

from conftest import REPO
from hpcreward import AuthError, Client, ConflictError, RequestError

BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", REPO / "build" / "bin"))
SAMPLES = REPO / "train_bridge" / "samples" / "c"
IKJ = (SAMPLES / "ikj.c").read_text()
NAIVE = (SAMPLES / "naive_ijk.c").read_text()
SYNTAX_ERROR = (SAMPLES / "syntax_error.c").read_text()
SGEMM_IKJ = (SAMPLES / "sgemm_ikj.c").read_text()
START_S = 180


def fenced(code):
    return f"Here is a cache-friendly version:\n\n```c\n{code}```\n\nThe i-k-j order streams rows of B."


def serve_available():
    coordinator = BIN / "hpcreward-coordinator"
    if not coordinator.exists():
        return False, f"{coordinator} not built"
    out = subprocess.run([str(coordinator), "--help"], capture_output=True, text=True, timeout=30)
    if "--serve" not in out.stdout + out.stderr:
        return False, f"{coordinator} has no --serve yet"
    return True, ""


available, why = serve_available()
pytestmark = pytest.mark.skipif(not available, reason=why)


class Pipeline:
    def __init__(self, out_dir):
        self.dir = out_dir
        self.log = open(out_dir.parent / "local-sh.log", "w+")
        env = dict(os.environ, HPCREWARD_BIN=str(BIN))
        command = [str(REPO / "jobs" / "local.sh"), "--serve", "--np", "2", "--out", str(out_dir),
                   "--", "--warmup-s", "0.05", "--time-cap-s", "0.3"]
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                        start_new_session=True)
        self.rendezvous_file = out_dir / "coordinator.json"
        deadline = time.monotonic() + START_S
        while not self.rendezvous_file.exists():
            if self.process.poll() is not None:
                pytest.fail(f"local.sh --serve exited with {self.process.returncode} before writing "
                            f"coordinator.json:\n{self.output()}")
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"no coordinator.json after {START_S} s:\n{self.output()}")
            time.sleep(0.2)
        self.client = Client.from_rendezvous(out_dir, wait_s=10, timeout=300)
        self.rendezvous = json.loads(self.rendezvous_file.read_text())

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-6000:]

    def kill(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    served = Pipeline(tmp_path_factory.mktemp("served") / "run")
    yield served
    served.kill()
    served.log.close()


def test_rendezvous_file_and_token_file(pipeline):
    assert pipeline.rendezvous["url"].startswith("http://")
    assert isinstance(pipeline.rendezvous["pid"], int)
    assert os.stat(pipeline.rendezvous["token_file"]).st_mode & 0o777 == 0o600


def test_sources_and_completions_get_statuses_and_rewards(pipeline):
    results = pipeline.client.score_sources_detailed(
        [IKJ, SYNTAX_ERROR], problems="dgemm-256", stages="o0", ids=["ikj-source", "syntax-error"])
    results += pipeline.client.score_detailed(
        [fenced(IKJ), "To multiply matrices fast, tile the loops."], problems="dgemm-256", stages="o0",
        ids=["ikj-completion", "prose-only"])
    by_id = {result["id"]: result for result in results}
    assert [result["id"] for result in results] == ["ikj-source", "syntax-error", "ikj-completion", "prose-only"]
    assert {key: result["status"] for key, result in by_id.items()} == {
        "ikj-source": "ok", "syntax-error": "compile_error", "ikj-completion": "ok", "prose-only": "format_error"}, results
    for key in ("ikj-source", "ikj-completion"):
        assert by_id[key]["gflops"] > 0 and by_id[key]["reward"] > 0 and by_id[key]["stage"] == "o0"
    assert by_id["syntax-error"]["reason"]
    assert max(by_id["syntax-error"]["reward"], by_id["prose-only"]["reward"]) < by_id["ikj-source"]["reward"]


def test_a_retried_batch_is_answered_from_the_log(pipeline):
    batch_id = f"retry-{uuid.uuid4().hex[:8]}"
    first = pipeline.client.score_sources_detailed([NAIVE], "dgemm-256", stages="o0", batch_id=batch_id)
    again = pipeline.client.score_sources_detailed([NAIVE], "dgemm-256", stages="o0", batch_id=batch_id)
    assert first == again and first[0]["status"] == "ok"
    with pytest.raises(ConflictError):
        pipeline.client.score_sources_detailed([IKJ], "dgemm-256", stages="o0", batch_id=batch_id)


def test_submit_then_poll_while_doing_other_work(pipeline):
    handle = pipeline.client.submit_sources([IKJ, SGEMM_IKJ], ["dgemm-256", "sgemm-256"], stages="o0",
                                            ids=["async-dgemm", "async-sgemm"])
    results = handle.result(timeout=300)
    assert [result["status"] for result in results] == ["ok", "ok"], results
    assert handle.done() and all(reward > 0 for reward in handle.rewards())


def test_openrlhf_get_reward_route(pipeline):
    prompt = "Write a fast matmul.\n"
    rewards = pipeline.client.get_reward([prompt + fenced(IKJ), prompt + "no code"], [prompt, prompt],
                                         ["dgemm-256", "dgemm-256"])
    assert len(rewards) == 2 and rewards[0] > rewards[1]


def test_wrong_token_and_bad_request_are_refused(pipeline):
    with pytest.raises(AuthError):
        Client(pipeline.rendezvous["url"], "not-the-token", retries=0).score(["x"], "dgemm-256")
    with pytest.raises(RequestError) as error:
        pipeline.client._transport.request("POST", "/v1/batches", {"batch_id": "bad", "candidates": "nope"})
    assert 400 <= error.value.status < 500 and error.value.message


def test_replay_cli(pipeline, tmp_path):
    lines = [{"id": "replay-ikj", "problem": "dgemm-256", "stage": "o0", "source": IKJ},
             {"id": "replay-broken", "problem": "dgemm-256", "stage": "o0", "source": SYNTAX_ERROR}]
    file = tmp_path / "replay.jsonl"
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = subprocess.run([sys.executable, str(REPO / "train_bridge" / "bin" / "hpcreward-replay"), str(file),
                             "--rendezvous", str(pipeline.dir)], capture_output=True, timeout=300)
    stdout = result.stdout.decode()
    assert result.returncode == 0, stdout + result.stderr.decode()
    assert "scored 2 candidates" in stdout and "compile_error" in stdout


def test_sigterm_stops_the_pipeline_and_local_sh_exits_0(pipeline):
    os.kill(pipeline.rendezvous["pid"], signal.SIGTERM)
    try:
        code = pipeline.process.wait(120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"local.sh still running 120 s after SIGTERM:\n{pipeline.output()}")
    assert code == 0, pipeline.output()
    h5py = pytest.importorskip("h5py")
    with h5py.File(pipeline.dir / "rewards.h5", "r") as log:
        ids = [value.decode() if isinstance(value, bytes) else value for value in log["rewards"]["candidate_id"][()]]
    assert sorted(ids) == sorted(set(ids)), "a candidate was logged twice"
    assert "ikj-source" in ids and "replay-ikj" in ids
