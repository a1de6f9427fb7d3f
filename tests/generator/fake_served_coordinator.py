"""A stand-in for `hpcreward-coordinator --serve` (test_main_job_wiring.py): the HTTP routes
the generator uses (POST /v1/batches, GET /v1/stages) with the bearer token, the rendezvous
file, coordinator.pid, and a clean stop on SIGTERM with coordinator.outcome.json, as
coordinator/README.md describes them. It benchmarks nothing: every candidate is `ok` at a
made-up GFLOPS, and each problem moves one stage up its ladder (stages/default_ladder.json)
every 16 candidates. What it was started with and every batch it got go to DIR/fake-*.json*,
for the test to read. Its counts stay in DIR/fake-scored.json, and DIR/rewards.h5 is only a
marker: a run started again with --resume goes on from the stages it reached. With
FAKE_COORDINATOR_STOPS_AFTER_BATCHES=K it answers K batches, then refuses the next (503, as a
stopping coordinator does) and stops as on SIGTERM: a main job cut off after K batches. With
FAKE_COORDINATOR_STOPS_AFTER_BATCHES_OF=PROBLEM=K,PROBLEM=K it answers K batches of each
problem named, refuses the later ones of that problem, and stops once each named problem had one
refused: searches with batches in flight, each cut off after K of its own, whatever the order in
which their batches arrived. Batches are taken one at a time, in order of arrival; several may
be in flight (a request each). Before it stops, every answer it began is sent.
Started with --candidates FILE (a file run) it scores nothing and serves nothing: it writes
coordinator.pid and waits for SIGTERM/SIGINT, then stops as a file run stopped before its end
does (outcome `stopped`, exit 75).
"""
import http.server
import json
import os
import pathlib
import secrets
import signal
import sys
import threading

REPO = pathlib.Path(__file__).resolve().parents[2]
LADDERS = json.loads((REPO / "stages" / "default_ladder.json").read_text())
PER_STAGE = 16


def main(argv):
    out = pathlib.Path(argv[argv.index("--out") + 1])
    out.mkdir(parents=True, exist_ok=True)
    if os.environ.get("FAKE_COORDINATOR_FAILS_AT_START"):  # as on a log it cannot open
        print("hpcreward-coordinator: error: the stand-in was told to fail at start", file=sys.stderr)
        return 1
    (out / "fake-coordinator-argv.json").write_text(json.dumps(argv))
    if "--candidates" in argv:
        return stop_a_file_run(out)
    token = secrets.token_hex(16)
    token_file = out / "coordinator.token"
    token_file.write_text(token)
    token_file.chmod(0o600)
    counts = out / "fake-scored.json"
    scored = json.loads(counts.read_text()) if counts.exists() else {}  # problem -> candidates scored
    (out / "rewards.h5").touch()
    lock = threading.Lock()
    stops_after = os.environ.get("FAKE_COORDINATOR_STOPS_AFTER_BATCHES")
    budgets = dict((problem, int(count)) for problem, count in
                   (entry.split("=") for entry in os.environ.get("FAKE_COORDINATOR_STOPS_AFTER_BATCHES_OF", "")
                    .split(",") if entry))
    answered = []  # batches this process answered
    answered_of = {}  # problem -> batches of it this process answered
    refused_of = set()  # problems of the budgets with a batch refused

    def stage_of(problem):
        ladder = LADDERS["cuda_ladder" if problem.startswith("cuda-") else "ladder"]
        return ladder[min(scored.get(problem, 0) // PER_STAGE, len(ladder) - 1)]

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, code, body):
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def authorized(self):
            if self.headers.get("Authorization") == f"Bearer {token}":
                return True
            self.answer(401, {"error": "unauthorized"})
            return False

        def do_GET(self):
            if not self.authorized():
                return
            if self.path == "/v1/stages":
                with lock:
                    self.answer(200, {"stages": {problem: stage_of(problem) for problem in scored}})
            else:
                self.answer(404, {"error": "no such route"})

        def do_POST(self):
            if not self.authorized():
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/batches":
                self.answer(404, {"error": "no such route"})
                return
            with lock:
                if stops_after is not None and len(answered) >= int(stops_after):
                    self.answer(503, {"error": "the stand-in is stopping (told to after "
                                               f"{stops_after} batches): retry after it restarts"})
                    stopped.set()
                    return
                problem = body["candidates"][0]["problem"]
                if problem in budgets and answered_of.get(problem, 0) >= budgets[problem]:
                    self.answer(503, {"error": f"the stand-in answers no more {problem} batches: retry after "
                                               "it restarts"})
                    refused_of.add(problem)
                    if refused_of == set(budgets):
                        stopped.set()
                    return
                answered.append(body["batch_id"])
                answered_of[problem] = answered_of.get(problem, 0) + 1
                with open(out / "fake-batches.jsonl", "a") as log:
                    log.write(json.dumps(body) + "\n")
                stages = {c["problem"]: stage_of(c["problem"]) for c in body["candidates"]}
                results = [{"id": c["id"], "status": "ok", "reason": "", "gflops": 1.0 + len(c["source"]) % 7,
                            "reward": 1.0, "stage": c.get("stage") or stages[c["problem"]], "device": "",
                            "measured_as": "", "measured_batch": ""} for c in body["candidates"]]
                for c in body["candidates"]:
                    scored[c["problem"]] = scored.get(c["problem"], 0) + 1
                counts.write_text(json.dumps(scored))
            self.answer(200, {"batch_id": body["batch_id"], "state": "done", "done": len(results),
                              "total": len(results), "results": results})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = False  # server_close() joins them: no answer cut off by the stop
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    (out / "coordinator.pid").write_text(f"{os.getpid()}\n")
    rendezvous = {"url": f"http://127.0.0.1:{server.server_address[1]}", "token_file": str(token_file),
                  "pid": os.getpid()}
    (out / "coordinator.json.tmp").write_text(json.dumps(rendezvous))
    (out / "coordinator.json.tmp").rename(out / "coordinator.json")
    # In short waits: a SIGTERM the kernel hands to the server's thread runs its Python handler
    # only once the main thread wakes, which an endless wait never does.
    while not stopped.wait(0.2):
        pass
    server.shutdown()
    server.server_close()
    (out / "coordinator.json").unlink()
    (out / "coordinator.outcome.json").write_text(json.dumps({"exit_code": 0, "outcome": "complete",
                                                              "message": "stopped by SIGTERM"}))
    return 0


def stop_a_file_run(out):
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    (out / "rewards.h5").touch()
    (out / "coordinator.pid").write_text(f"{os.getpid()}\n")
    while not stopped.wait(0.2):
        pass
    (out / "coordinator.outcome.json").write_text(json.dumps({"exit_code": 75, "outcome": "stopped",
                                                              "message": "stopped by SIGTERM"}))
    return 75


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
