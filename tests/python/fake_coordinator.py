"""A small stand-in for the served coordinator's HTTP endpoint, implementing the trainer contract.

Scoring is deterministic and instant: a source with BROKEN is a compile_error, one with WRONG a
wrong_answer, anything else ok with gflops = 1 + len(code) % 10. A completion is read as the
served coordinator reads it (coordinator/input/code_extraction.hpp), in small: reasoning sections
(<think>, <thinking>, <reasoning>) are skipped; the one fenced block that defines matmul is the
code, or the whole completion when it has no fence and defines matmul itself; none, or two blocks
that define it, is a format_error. Fault injection: drop_posts (close the socket after
the batch is accepted, without answering), fail_503 (answer 503 first), sleep_first_post_s,
sleep_each_post_s, forbid (403 for every request), polls_until_done (GETs before a non-waiting batch is done).
With tls=(cert, key) it serves HTTPS with that certificate, and its rendezvous names it (tls_cert).
"""
import http.server
import json
import re
import socket
import ssl
import threading
import time
import urllib.parse

PROBLEMS = {"dgemm-256", "dgemm-512", "dgemm-1024", "sgemm-256", "sgemm-512", "sgemm-1024"}
PENALTY = {"format_error": -1.0, "compile_error": -0.5, "wrong_answer": -0.25}
FENCE = re.compile(r"(```|~~~)[^\n]*\n(.*?)\1", re.S)
REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S)
DEFINES_MATMUL = re.compile(r"\bmatmul\s*\([^)]*\)\s*\{")


def code_of(completion):
    """(code, None) or (None, the format_error's reason)."""
    text = REASONING.sub("", completion)
    fenced = [match.group(2) for match in FENCE.finditer(text)]
    defining = [block for block in fenced if DEFINES_MATMUL.search(block)]
    if len(defining) == 1:
        return defining[0], None
    if len(defining) > 1:
        return None, f"{len(defining)} fenced code blocks define matmul"
    if not fenced and DEFINES_MATMUL.search(text):
        return text, None
    return None, "no fenced code block defines matmul (a definition: its signature, then its body in braces)"


def score_candidate(candidate):
    base = {"id": candidate.get("id"), "stage": candidate.get("stage", "o0"), "gflops": 0.0,
            "episode": candidate.get("episode", ""), "turn": candidate.get("turn", 0)}
    if candidate.get("problem") not in PROBLEMS:
        return dict(base, status="format_error", reason=f"unknown problem {candidate.get('problem')!r}",
                    reward=PENALTY["format_error"])
    if "completion" in candidate:
        code, refused = code_of(candidate["completion"])
        if refused:
            return dict(base, status="format_error", reason=refused, reward=PENALTY["format_error"])
    else:
        code = candidate["source"]
    if "BROKEN" in code:
        return dict(base, status="compile_error", reason="error: expected ';'", reward=PENALTY["compile_error"])
    if "WRONG" in code:
        return dict(base, status="wrong_answer", reason="error 1.0 above tolerance", reward=PENALTY["wrong_answer"])
    gflops = 1.0 + len(code.strip()) % 10
    return dict(base, status="ok", reason="", reward=gflops, gflops=gflops, feedback=f"Correct. {gflops} GFLOPS.")


class FakeCoordinator:
    def __init__(self, token="secret-token", tls=None):
        self.token = token
        self.tls_cert = tls[0] if tls else None
        self.lock = threading.Lock()
        self.batches = {}
        self.stages = {"dgemm-256": "o3"}  # GET /v1/stages; /v1/prompts follows it
        self.scored = []          # ids, one entry per benchmark
        self.requests = []        # (method, path, batch_id or None)
        self.drop_posts = 0
        self.fail_503 = 0
        self.sleep_first_post_s = 0.0
        # The first POST waits (at most 30 s) for this event; first_post_released says whether it came.
        self.first_post_waits_for = None
        self.first_post_released = None
        self.sleep_each_post_s = 0.0  # every POST waits this long before it is answered (a slow benchmark)
        # Every POST waits (at most 30 s) until this many have been in flight at once: a client that
        # sends them concurrently gets max_in_flight >= gather_posts, one that sends them one after
        # another gets 1, whatever the machine's speed.
        self.gather_posts = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.gathered = threading.Condition(self.lock)
        self.forbid = False
        self.polls_until_done = 2
        server_class = type("Server", (http.server.ThreadingHTTPServer,), {"request_queue_size": 128,
                                                                      "handle_error": lambda *args: None})
        self.server = server_class(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*map(str, tls))
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def write_rendezvous(self, directory):
        token_file = directory / "token"
        token_file.write_text(self.token + "\n")
        token_file.chmod(0o600)
        rendezvous = {"url": self.url, "token_file": str(token_file), "pid": 12345}
        if self.tls_cert:
            rendezvous["tls_cert"] = str(self.tls_cert)
        (directory / "coordinator.json").write_text(json.dumps(rendezvous))
        return directory / "coordinator.json"

    def posts(self, path="/v1/batches"):
        return [entry for entry in self.requests if entry[0] == "POST" and entry[1] == path]

    # -- the contract ----------------------------------------------------------------------------

    def submit(self, body):
        """(status, answer, drop) of a POST /v1/batches."""
        if not isinstance(body, dict) or not isinstance(body.get("batch_id"), str) or not body["batch_id"]:
            return 400, {"error": "batch_id must be a non-empty string"}, False
        candidates = body.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            return 400, {"error": "candidates must be a non-empty array"}, False
        for candidate in candidates:
            if not isinstance(candidate, dict) or ("source" in candidate) == ("completion" in candidate):
                return 400, {"error": "each candidate needs exactly one of source and completion"}, False
        key = json.dumps(candidates, sort_keys=True)
        batch_id = body["batch_id"]
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is not None and batch["key"] != key:
                return 409, {"error": f"batch {batch_id} was already submitted with other candidates"}, False
            if batch is None:
                results = [score_candidate(candidate) for candidate in candidates]
                self.scored.extend(candidate["id"] for candidate in candidates)
                batch = {"key": key, "results": results, "polls": 0}
                self.batches[batch_id] = batch
            drop = self.drop_posts > 0
            if drop:
                self.drop_posts -= 1
        if body.get("wait", True):
            return 200, {"batch_id": batch_id, "results": batch["results"]}, drop
        return 202, self.state(batch_id, count_poll=False), drop

    def state(self, batch_id, count_poll=True):
        batch = self.batches[batch_id]
        total = len(batch["results"])
        if count_poll:
            batch["polls"] += 1
        if batch["polls"] >= self.polls_until_done:
            return {"batch_id": batch_id, "state": "done", "done": total, "total": total, "results": batch["results"]}
        state = "queued" if batch["polls"] == 0 else "running"
        return {"batch_id": batch_id, "state": state, "done": total * batch["polls"] // (self.polls_until_done + 1),
                "total": total}

    def get_reward(self, body):
        queries, prompts, labels = body.get("query"), body.get("prompts") or [], body.get("labels") or []
        rewards = []
        for index, query in enumerate(queries):
            prompt = prompts[index] if index < len(prompts) else ""
            response = query[len(prompt):] if prompt and query.startswith(prompt) else query
            label = labels[index] if index < len(labels) else "dgemm-256"
            rewards.append(score_candidate({"id": f"q{index}", "problem": label, "completion": response})["reward"])
        return 200, {"rewards": rewards}

    def _handler(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _read_json(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    return json.loads(raw)
                except ValueError:
                    return None

            def _authorized(self):
                if fake.forbid:
                    self._send(403, {"error": "token not allowed"})
                    return False
                if self.headers.get("Authorization") != f"Bearer {fake.token}":
                    self._send(401, {"error": "missing or wrong bearer token"})
                    return False
                return True

            def _drop(self):
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

            def do_POST(self):
                body = self._read_json()
                batch_id = body.get("batch_id") if isinstance(body, dict) else None
                with fake.lock:
                    fake.requests.append(("POST", self.path, batch_id))
                    first = len(fake.posts(self.path)) == 1
                    fail = fake.fail_503 > 0
                    if fail:
                        fake.fail_503 -= 1
                if not self._authorized():
                    return
                with fake.gathered:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                    fake.gathered.notify_all()
                    if fake.gather_posts:
                        fake.gathered.wait_for(lambda: fake.max_in_flight >= fake.gather_posts, timeout=30)
                try:
                    if fail:
                        return self._send(503, {"error": "shutting down"})
                    if first and fake.sleep_first_post_s:
                        time.sleep(fake.sleep_first_post_s)
                    if first and fake.first_post_waits_for is not None:
                        fake.first_post_released = fake.first_post_waits_for.wait(30)
                    if fake.sleep_each_post_s:
                        time.sleep(fake.sleep_each_post_s)
                    if self.path == "/v1/batches":
                        status, answer, drop = fake.submit(body)
                        if drop:
                            return self._drop()
                        return self._send(status, answer)
                    if self.path == "/get_reward":
                        if not isinstance(body, dict) or not isinstance(body.get("query"), list):
                            return self._send(400, {"error": "query must be an array"})
                        return self._send(*fake.get_reward(body))
                    self._send(404, {"error": f"no route {self.path}"})
                finally:
                    with fake.gathered:
                        fake.in_flight -= 1

            def do_GET(self):
                with fake.lock:
                    fake.requests.append(("GET", self.path, None))
                if not self._authorized():
                    return
                if self.path == "/v1/stages":
                    with fake.lock:
                        stages = dict(fake.stages)
                    return self._send(200, {"stages": stages, "reward_mode": "fraction"})
                if self.path.startswith("/v1/prompts"):
                    query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
                    problem = query.get("problem", ["dgemm-256"])[0]
                    with fake.lock:
                        stage = query.get("stage", [fake.stages.get(problem, "o0")])[0]
                    return self._send(200, {"prompts": [{"problem": problem, "stage": stage, "current_stage": True,
                                                         "prompt": f"{problem} in stage {stage}"}]})
                prefix = "/v1/batches/"
                if not self.path.startswith(prefix):
                    return self._send(404, {"error": f"no route {self.path}"})
                batch_id = self.path[len(prefix):]
                with fake.lock:
                    if batch_id not in fake.batches:
                        return self._send(404, {"error": f"no batch {batch_id}"})
                    answer = fake.state(batch_id)
                self._send(200, answer)

        return Handler
