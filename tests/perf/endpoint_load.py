#!/usr/bin/env python3
"""Load benchmark of serve mode's HTTP endpoint ("Endpoint"); not a unit test.

Starts a served run (jobs/local.sh --serve --listen 127.0.0.1:0 --np N --out DIR), opens
IDLE TCP connections that send nothing (reopened whenever the coordinator closes one), runs
CLIENTS concurrent trainer clients that each POST one small batch with "wait": true (shipped
sample sources from train_bridge/samples/c/, problem dgemm-256), and meanwhile polls
GET /v1/stages every 50 ms. Prints and writes a JSON report (--report): requests answered,
p50/p99/max of /v1/stages while batches score, batch latencies, and whether the targets are
met (every request answered; /v1/stages p99 <= 50 ms). Stops the run with SIGTERM to the pid
in DIR/coordinator.pid. Standard library only.

  HPCREWARD_BIN=build/bin /usr/bin/python3 tests/perf/endpoint_load.py --report endpoint_load.json
"""
import argparse
import http.client
import json
import os
import pathlib
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = REPO / "train_bridge" / "samples" / "c"
STAGES_TARGET_MS = 50.0


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(round(p / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[k]


def summary(values_ms):
    if not values_ms:
        return {"count": 0}
    return {"count": len(values_ms), "p50_ms": round(percentile(values_ms, 50), 2),
            "p99_ms": round(percentile(values_ms, 99), 2), "max_ms": round(max(values_ms), 2),
            "mean_ms": round(statistics.fmean(values_ms), 2)}


def start_run(out, np_ranks, extra):
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    log = open(out.parent / "local.log", "w")
    command = [str(REPO / "jobs" / "local.sh"), "--serve", "--listen", "127.0.0.1:0", "--np", str(np_ranks),
               "--out", str(out)] + extra
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO)
    rendezvous = out / "coordinator.json"
    deadline = time.monotonic() + 300
    while not rendezvous.exists():
        if process.poll() is not None:
            sys.exit(f"jobs/local.sh exited with {process.returncode} before serving; see {log.name}")
        if time.monotonic() > deadline:
            process.terminate()
            sys.exit(f"no {rendezvous} after 300 s; see {log.name}")
        time.sleep(0.2)
    info = json.loads(rendezvous.read_text())
    token = pathlib.Path(info["token_file"]).read_text().strip()
    url = urllib.parse.urlsplit(info["url"])
    return process, url.hostname, url.port, token


def stop_run(process, out):
    pid_file = out / "coordinator.pid"
    try:
        os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
    except (OSError, ValueError) as error:
        print(f"cannot SIGTERM the coordinator ({error}); stopping jobs/local.sh", file=sys.stderr)
        process.terminate()
    try:
        return process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


class IdleConnections:
    """`count` TCP connections that never send a byte; any the server closes is reopened."""

    def __init__(self, host, port, count):
        self.host, self.port, self.count = host, port, count
        self.sockets, self.reopened, self.stop = [], 0, threading.Event()
        for _ in range(count):
            self.sockets.append(socket.create_connection((host, port)))
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self):
        while not self.stop.is_set():
            readable, _, _ = select.select(self.sockets, [], [], 0.1)
            for sock in readable:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if not data:  # closed by the server (its read timeout): open another
                    sock.close()
                    self.sockets[self.sockets.index(sock)] = socket.create_connection((self.host, self.port))
                    self.reopened += 1

    def close(self):
        self.stop.set()
        self.thread.join()
        for sock in self.sockets:
            sock.close()


def poll_stages(host, port, token, stop, samples, errors):
    headers = {"Authorization": f"Bearer {token}"}
    connection = http.client.HTTPConnection(host, port, timeout=30)
    while not stop.is_set():
        began = time.monotonic()
        try:
            connection.request("GET", "/v1/stages", headers=headers)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                errors.append(f"GET /v1/stages: {response.status} {body[:200]!r}")
        except (OSError, http.client.HTTPException):  # the server closed a kept-alive connection: again
            connection.close()
            connection = http.client.HTTPConnection(host, port, timeout=30)
            try:
                connection.request("GET", "/v1/stages", headers=headers)
                response = connection.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as error:
                errors.append(f"GET /v1/stages: {error}")
                continue
        took = time.monotonic() - began
        samples.append((began, took * 1000.0))
        stop.wait(max(0.0, 0.05 - took))
    connection.close()


def one_client(host, port, token, index, sources, run_tag, results):
    name, text = sources[index % len(sources)]
    source = text + f"\n// endpoint_load client {index}\n"
    body = json.dumps({"batch_id": f"load-{run_tag}-{index}", "wait": True,
                       "candidates": [{"id": f"c{index}", "problem": "dgemm-256", "source": source}]})
    began = time.monotonic()
    outcome = {"client": index, "sample": name}
    try:
        connection = http.client.HTTPConnection(host, port, timeout=900)
        connection.request("POST", "/v1/batches", body=body,
                           headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        answer = json.loads(response.read())
        outcome.update(status=response.status, answered=response.status == 200 and len(answer.get("results", [])) == 1)
        if outcome["answered"]:
            outcome["result_status"] = answer["results"][0]["status"]
        else:
            outcome["error"] = str(answer)[:300]
        connection.close()
    except Exception as error:  # noqa: BLE001 - the report says what went wrong
        outcome.update(status=None, answered=False, error=repr(error))
    outcome["seconds"] = time.monotonic() - began
    results[index] = outcome


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--idle", type=int, default=64)
    parser.add_argument("--np", type=int, default=2, help="CPU benchmark ranks")
    parser.add_argument("--out", help="run directory (default: a new temporary one)")
    parser.add_argument("--report", default="endpoint_load.json")
    parser.add_argument("extra", nargs="*", help="after --: more jobs/local.sh options")
    args = parser.parse_args()

    sources = [(p.name, p.read_text()) for p in sorted(SAMPLES.glob("*.c"))]
    out = pathlib.Path(args.out) if args.out else pathlib.Path(tempfile.mkdtemp(prefix="endpoint_load-")) / "run"
    process, host, port, token = start_run(out, args.np, args.extra)
    print(f"serving on {host}:{port} (run directory {out})", flush=True)
    idle = None
    try:
        idle = IdleConnections(host, port, args.idle)
        stop, samples, errors = threading.Event(), [], []
        poller = threading.Thread(target=poll_stages, args=(host, port, token, stop, samples, errors))
        poller.start()
        time.sleep(1.0)  # a baseline of idle polls
        results = [None] * args.clients
        run_tag = str(int(time.time()))
        began = time.monotonic()
        clients = [threading.Thread(target=one_client, args=(host, port, token, i, sources, run_tag, results))
                   for i in range(args.clients)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        ended = time.monotonic()
        time.sleep(0.5)
        stop.set()
        poller.join()
    finally:
        if idle:
            idle.close()
        status = stop_run(process, out)

    during = [ms for t, ms in samples if began <= t <= ended]
    before = [ms for t, ms in samples if t < began]
    answered = sum(1 for r in results if r and r["answered"])
    verdicts = {}
    for r in results:
        if r and r.get("result_status"):
            verdicts[r["result_status"]] = verdicts.get(r["result_status"], 0) + 1
    stages_during = summary(during)
    report = {
        "clients": args.clients, "idle_connections": args.idle, "benchmark_ranks": args.np,
        "cpus": os.cpu_count(), "requests_answered": answered, "requests_sent": args.clients,
        "candidate_verdicts": verdicts,
        "failures": [r for r in results if r and not r["answered"]][:10],
        "batch_latency": summary([r["seconds"] * 1000.0 for r in results if r]),
        "scoring_wall_s": round(ended - began, 2),
        "stages_while_scoring": stages_during, "stages_before_scoring": summary(before),
        "stages_errors": errors[:10], "idle_reopened": idle.reopened if idle else None,
        "local_sh_status": status,
        "targets": {
            "every_request_answered": answered == args.clients,
            "stages_p99_at_most_50_ms": stages_during.get("p99_ms") is not None
            and stages_during["p99_ms"] <= STAGES_TARGET_MS,
        },
    }
    report["targets"]["met"] = all(report["targets"].values())
    text = json.dumps(report, indent=2)
    print(text)
    pathlib.Path(args.report).write_text(text + "\n")
    return 0 if report["targets"]["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
