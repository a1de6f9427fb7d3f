"""Integration: the client against a real served pipeline (jobs/local.sh --serve, 2 benchmark ranks).

Runs only when the coordinator built in HPCREWARD_BIN (default build/bin) has --serve.
The last test stops the pipeline with SIGTERM and checks that local.sh exits 0 and that the log
holds exactly one row per candidate, retries included.
"""
import json
import os
import re
import pathlib
import signal
import subprocess
import sys
import time
import uuid

import http.client
import importlib.util
import socket
import threading
import urllib.parse

import pytest

from conftest import PACKAGE_DIR, REPO
from hpcreward import AuthError, Client, ConflictError, RequestError
from hpcreward.trl import reward_function

BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", REPO / "build" / "bin"))
SAMPLES = REPO / "train_bridge" / "samples" / "c"
IKJ = (SAMPLES / "ikj.c").read_text()
NAIVE = (SAMPLES / "naive_ijk.c").read_text()
SYNTAX_ERROR = (SAMPLES / "syntax_error.c").read_text()
SGEMM_IKJ = (SAMPLES / "sgemm_ikj.c").read_text()
START_S = 180


def fenced(code):
    return f"Here is a cache-friendly version:\n\n```c\n{code}```\n\nThe i-k-j order streams rows of B."


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
    # Feedback for the model: the compiler's line for the error, the speed and techniques for ok.
    assert by_id["syntax-error"]["feedback"].startswith("It did not compile: ")
    assert re.search(r"\.c:\d+:\d+: error", by_id["syntax-error"]["feedback"]), by_id["syntax-error"]["feedback"]
    assert "/tmp" not in by_id["syntax-error"]["feedback"] and "/work" not in by_id["syntax-error"]["feedback"]
    assert by_id["ikj-source"]["feedback"].startswith("Correct at every checked shape. ")
    assert "% of OpenBLAS" in by_id["ikj-source"]["feedback"] and "Techniques detected: " in by_id["ikj-source"]["feedback"]
    assert by_id["prose-only"]["feedback"].startswith("Not scored: ")
    assert by_id["ikj-source"]["yardsticks"]["openblas"] > 0, "the CPU rank's OpenBLAS at the problem's shape"
    assert by_id["prose-only"]["yardsticks"] == {"openblas": 0, "cublas": 0, "cublaslt": 0}, "decided alone: none"
    assert max(by_id["syntax-error"]["reward"], by_id["prose-only"]["reward"]) < by_id["ikj-source"]["reward"]
    # The problem has a place on the built-in ladder once a batch used it.
    assert pipeline.client.stages()["dgemm-256"] in ("o0", "o3", "openmp", "avx512", "blocking")
    assert pipeline.client.reward_mode() == "gflops"
    # What the ids mean: the run's catalog (the built-in default here).
    catalog = pipeline.client.problems()
    assert catalog["catalog"] == "default" and catalog["source"] == "built-in default"
    dgemm = next(problem for problem in catalog["problems"] if problem["id"] == "dgemm-256")
    assert (dgemm["language"], dgemm["precision"], dgemm["nominal"]) == ("c", "f64", "256x256x256")
    assert len(catalog["problems"]) == 15
    # The prompts: built from the run's catalog, ladder and the ranks' own hardware.
    prompt = pipeline.client.prompts("dgemm-256")[0]
    assert prompt["problem"] == "dgemm-256" and prompt["current_stage"]
    assert prompt["stage"] == pipeline.client.stages()["dgemm-256"]
    assert "void matmul(int m, int n, int k, const double *A, const double *B, double *C)" in prompt["prompt"]
    assert f"This is stage `{prompt['stage']}`" in prompt["prompt"]
    assert "core for your code" in prompt["prompt"], "the CPU rank described itself"
    assert "`-O3 -fopenmp`" in pipeline.client.prompt("dgemm-256", stage="openmp")
    every = pipeline.client.prompts()
    assert {p["problem"] for p in every} == {p["id"] for p in catalog["problems"] if p["language"] == "c"}


def test_answers_as_models_write_them(pipeline):
    # A draft inside <think>, a build command beside the kernel, code with no fence: the
    # defining block (or the whole code) is judged, and the feedback says which.
    think = f"<think>\nA first draft:\n```c\n{NAIVE}```\nThe i-k-j order is faster.\n</think>\n{fenced(IKJ)}"
    build = fenced(IKJ) + "\nBuild it:\n```sh\ngcc -O3 -shared -fPIC -o libmatmul.so matmul.c\n```\n"
    tag = uuid.uuid4().hex[:8]
    ids = [f"think-{tag}", f"build-{tag}", f"raw-{tag}", f"twice-{tag}"]
    results = pipeline.client.score_detailed([think, build, IKJ, fenced(IKJ) + fenced(NAIVE)], problems="dgemm-256",
                                             stages="o0", ids=ids)
    by_id = {result["id"]: result for result in results}
    assert [by_id[i]["status"] for i in ids] == ["ok", "ok", "ok", "format_error"], results
    assert by_id[ids[0]]["feedback"].startswith("Judged block 1 of 1 (```c, lines "), by_id[ids[0]]["feedback"]
    assert "not read: the reasoning (think, lines 1-" in by_id[ids[0]]["feedback"]
    assert "Correct at every checked shape" in by_id[ids[0]]["feedback"]
    assert by_id[ids[1]]["feedback"].startswith("Judged block 1 of 2 (```c, lines "), by_id[ids[1]]["feedback"]
    assert by_id[ids[2]]["feedback"].startswith("Judged the whole answer as code"), by_id[ids[2]]["feedback"]
    assert "2 fenced code blocks define matmul, block 1 (```c" in by_id[ids[3]]["reason"], by_id[ids[3]]["reason"]

    # A multi-turn tool argument fenced as the prompt's Format line asks: its block is the code.
    # The same code again in a later batch reuses the measurement, with its whole feedback.
    wrong = f"```c\n{SYNTAX_ERROR}```"
    first = pipeline.client.score_candidates([{"id": f"tool-{tag}", "problem": "dgemm-256", "stage": "o0",
                                               "source": wrong}])[0]
    again = pipeline.client.score_candidates([{"id": f"tool-again-{tag}", "problem": "dgemm-256", "stage": "o0",
                                               "completion": "<think>hm</think>\n" + wrong}])[0]
    assert first["status"] == "compile_error" and "stray" not in first["feedback"], first
    assert again["measured_as"] == (first["measured_as"] or first["id"]), again  # the same code, measured once
    measured_feedback = first["feedback"].split(". ", 1)[1]
    assert again["feedback"].endswith(measured_feedback), (first["feedback"], again["feedback"])


def test_a_dataset_of_the_served_runs_prompts(pipeline, tmp_path):
    from hpcreward import dataset
    assert dataset.main(["--out", str(tmp_path), "--rendezvous", str(pipeline.dir), "dgemm-256", "sgemm-256"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "prompts.jsonl").read_text().splitlines()]
    stages = pipeline.client.stages()
    assert [(row["problem"], row["stage"]) for row in rows] == [
        ("dgemm-256", stages.get("dgemm-256", "o0")), ("sgemm-256", stages.get("sgemm-256", "o0"))]
    assert rows[0]["prompt"] == pipeline.client.prompt("dgemm-256")
    assert "served run" in (tmp_path / "README.md").read_text()


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


class DroppingProxy:
    """Forwards HTTP requests to the coordinator; for the first `drop` requests it waits for the
    coordinator's answer and then closes the client's connection without passing it on."""

    def __init__(self, upstream, drop=1):
        parsed = urllib.parse.urlsplit(upstream)
        self.host, self.port = parsed.hostname, parsed.port
        self.drop = drop
        self.forwarded = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection):
        with connection, connection.makefile("rb") as incoming:
            request_line = incoming.readline().decode().split()
            headers = {}
            while (line := incoming.readline().decode()) not in ("\r\n", "\n", ""):
                name, _, value = line.partition(":")
                headers[name.strip()] = value.strip()
            body = incoming.read(int(headers.get("Content-Length", 0)))
            upstream = http.client.HTTPConnection(self.host, self.port, timeout=300)
            upstream.request(request_line[0], request_line[1], body=body or None,
                             headers={k: v for k, v in headers.items() if k.lower() in ("authorization", "content-type")})
            response = upstream.getresponse()
            data = response.read()
            upstream.close()
            self.forwarded.append((request_line[0], request_line[1], response.status))
            if self.drop > 0:
                self.drop -= 1
                connection.shutdown(socket.SHUT_RDWR)
                return
            connection.sendall(f"HTTP/1.1 {response.status} {response.reason}\r\nContent-Type: application/json\r\n"
                               f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)

    def close(self):
        self.listener.close()


def test_a_lost_answer_is_retried_with_the_same_batch_id_and_scored_once(pipeline):
    proxy = DroppingProxy(pipeline.rendezvous["url"], drop=1)
    try:
        client = Client(proxy.url, pipeline.client._transport.token, backoff_s=0.05, timeout=300)
        results = client.score_sources_detailed([IKJ, SYNTAX_ERROR], "dgemm-256", stages="o0",
                                                batch_id="lost-answer", ids=["lost-ikj", "lost-syntax"])
    finally:
        proxy.close()
    assert [result["status"] for result in results] == ["ok", "compile_error"]
    assert proxy.forwarded == [("POST", "/v1/batches", 200), ("POST", "/v1/batches", 200)]
    # The last test checks in the log that lost-ikj has exactly one row.


def test_adapters_against_the_real_pipeline(pipeline, monkeypatch):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(pipeline.dir))
    trl_reward = reward_function(str(pipeline.dir))
    trl_rewards = trl_reward(prompts=["p", "p"], completions=[[{"role": "assistant", "content": fenced(IKJ)}],
                                                               [{"role": "assistant", "content": "no code"}]],
                             completion_ids=[[1], [2]], problem=["dgemm-256", "dgemm-256"], stage=["o0", "o0"],
                             trainer_state=None)
    assert trl_rewards[0] > 0 > trl_rewards[1]

    spec = importlib.util.spec_from_file_location("custom_module", PACKAGE_DIR / "hpcreward" / "verl.py")
    verl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(verl)
    verl_rewards = verl.compute_score_batch(data_sources=["hpc"] * 2, solution_strs=[fenced(NAIVE), fenced(SYNTAX_ERROR)],
                                            ground_truths=["dgemm-256"] * 2, extra_infos=[{"stage": "o0"}] * 2)
    assert verl_rewards[0]["score"] > 0 > verl_rewards[1]["score"]
    assert [r["status"] for r in verl_rewards] == ["ok", "compile_error"] and verl_rewards[0]["gflops"] > 0

    spec = importlib.util.spec_from_file_location("reward_func", PACKAGE_DIR / "hpcreward" / "openrlhf_reward.py")
    openrlhf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(openrlhf)
    prompt = "Improve this:\n```c\n" + NAIVE + "```\n"
    out = openrlhf.reward_func([prompt + fenced(IKJ)], [prompt], ['{"problem": "dgemm-256", "stage": "o0"}'])
    assert float(out["rewards"][0]) > 0 and float(out["scores"][0]) == 1.0


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
    import h5py  # a dependency (jobs/install-deps.sh): its absence is a failure, not a skip
    with h5py.File(pipeline.dir / "rewards.h5", "r") as log:
        ids = [value.decode() if isinstance(value, bytes) else value for value in log["rewards"]["candidate_id"][()]]
    assert sorted(ids) == sorted(set(ids)), "a candidate was logged twice"
    assert "ikj-source" in ids and "replay-ikj" in ids and "lost-ikj" in ids
