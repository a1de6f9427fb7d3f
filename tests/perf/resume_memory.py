#!/usr/bin/env python3
"""The coordinator's memory in serve mode after --resume over a large log.

Makes a reward log of --rows rows with benchmark ranks that answer at once (hpcreward-bench
--null-measurement, as dispatch_bench.py does; file mode, --batch candidates a batch_id), then
for each --bin (interleaved, --rounds times: A, B, A, B ...) resumes a copy of it in serve mode
and records rank 0's memory:

  rss_kb_serving    VmRSS once the endpoint serves and start-up is over (2 s idle)
  hwm_kb            VmHWM then: the start-up peak (the log's rows are all read once)
  rss_kb_resubmits  VmRSS after --resubmit logged batches were sent again (answered from the
                    log, every row checked against the log, nothing scored)
  resubmit_ms_per_batch  the wall time of one such request, sent one after another

and writes DIR/resume_memory.json. Null ranks measure nothing: the numbers are the
coordinator's alone. Standard library only.

  resume_memory.py --bin OLD/bin --bin NEW/bin --rows 50000 --batch 8 --dir /tmp/resume-mem
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dispatch_bench import candidate_source, read_pid  # noqa: E402


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise SystemExit(f"resume_memory: no {field} for pid {pid}")


def mpi_env():
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_rmaps_base_oversubscribe="1")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def command(bin_dir, ranks, *coordinator_args):
    return (["mpirun", "--oversubscribe", "--bind-to", "none", "-np", "1",
             os.path.join(bin_dir, "hpcreward-coordinator"), *coordinator_args, ":", "-np", str(ranks),
             os.path.join(bin_dir, "hpcreward-bench"), "--null-measurement", "--placement", "none"])


def candidates(rows, batch):
    return [{"id": f"c{i}", "batch_id": f"b{i // batch}", "source": candidate_source(i)} for i in range(rows)]


def make_log(args, work):
    path = os.path.join(work, "candidates.jsonl")
    with open(path, "w") as out:
        for candidate in candidates(args.rows, args.batch):
            out.write(json.dumps(candidate) + "\n")
    out_dir = os.path.join(work, "log")
    shutil.rmtree(out_dir, ignore_errors=True)  # a log left by an earlier run would be refused
    run = subprocess.run(command(args.bin[-1], args.ranks, "--out", out_dir, "--candidates", path, "--seed", "1"),
                         env=mpi_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        raise SystemExit(f"resume_memory: making the log failed ({run.returncode}):\n{run.stdout[-3000:]}")
    return os.path.join(out_dir, "rewards.h5")


def request(info, token, body):
    data = json.dumps(body).encode()
    req = urllib.request.Request(info["url"] + "/v1/batches", data=data, method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=300) as response:
        return response.status, json.loads(response.read())


def resumed_serve(args, bin_dir, log, work):
    out_dir = os.path.join(work, "serve")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    shutil.copy(log, os.path.join(out_dir, "rewards.h5"))
    process = subprocess.Popen(command(bin_dir, args.ranks, "--out", out_dir, "--serve", "--resume",
                                       "--listen", "127.0.0.1:0"),
                               env=mpi_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        rendezvous = os.path.join(out_dir, "coordinator.json")
        deadline = time.time() + 300
        while not os.path.exists(rendezvous):
            if process.poll() is not None or time.time() > deadline:
                raise SystemExit(f"resume_memory: no endpoint from {bin_dir}:\n{process.stdout.read()[-3000:]}")
            time.sleep(0.2)
        time.sleep(0.2)  # the file is written whole before it is renamed; read it once complete
        info = json.load(open(rendezvous))
        token = open(info["token_file"]).read().strip()
        pid = read_pid(os.path.join(out_dir, "coordinator.pid"), 60, process)
        time.sleep(2)
        sample = {"rss_kb_serving": status_kb(pid, "VmRSS"), "hwm_kb": status_kb(pid, "VmHWM")}
        by_batch = {}
        for candidate in candidates(args.rows, args.batch):
            sent = {"id": candidate["id"], "source": candidate["source"]}
            by_batch.setdefault(candidate["batch_id"], []).append(sent)
        step = max(1, len(by_batch) // max(1, args.resubmit))
        resubmitted = list(by_batch)[::step][:args.resubmit]
        started = time.monotonic()
        for batch_id in resubmitted:
            status, body = request(info, token, {"batch_id": batch_id, "wait": True, "candidates": by_batch[batch_id]})
            if status != 200 or len(body["results"]) != len(by_batch[batch_id]):
                raise SystemExit(f"resume_memory: batch {batch_id} answered {status}: {body}")
        sample["resubmit_ms_per_batch"] = round(1000 * (time.monotonic() - started) / len(resubmitted), 1)
        sample["rss_kb_resubmits"] = status_kb(pid, "VmRSS")
        os.kill(pid, signal.SIGTERM)
        output, _ = process.communicate(timeout=300)
        if process.returncode != 0:
            raise SystemExit(f"resume_memory: the resumed run exited {process.returncode}:\n{output[-3000:]}")
        if f"({args.rows} rows, 0 written now)" not in output:
            raise SystemExit(f"resume_memory: the resubmitted batches were scored again:\n{output[-3000:]}")
        return sample
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", action="append", required=True,
                        help="a build's bin folder (hpcreward-coordinator, hpcreward-bench); give several to compare "
                             "(the last one makes the log)")
    parser.add_argument("--rows", type=int, default=50_000, help="rows in the log")
    parser.add_argument("--batch", type=int, default=8, help="candidates per batch_id in the log")
    parser.add_argument("--ranks", type=int, default=2, help="null benchmark ranks")
    parser.add_argument("--rounds", type=int, default=2, help="resumed runs per --bin, interleaved")
    parser.add_argument("--resubmit", type=int, default=20, help="logged batches sent again after start-up")
    parser.add_argument("--dir", required=True, help="work folder (the log, the runs, resume_memory.json)")
    args = parser.parse_args()
    for bin_dir in args.bin:
        for name in ("hpcreward-coordinator", "hpcreward-bench"):
            if not os.access(os.path.join(bin_dir, name), os.X_OK):
                parser.error(f"--bin {bin_dir}: no {name} there")
    if args.rows < 1 or args.batch < 1 or args.ranks < 1 or args.rounds < 1:
        parser.error("--rows, --batch, --ranks and --rounds must be at least 1")
    if shutil.which("mpirun") is None:
        parser.error("mpirun: not found")
    os.makedirs(args.dir, exist_ok=True)
    log = make_log(args, args.dir)
    runs = {bin_dir: [] for bin_dir in args.bin}
    for _ in range(args.rounds):
        for bin_dir in args.bin:
            runs[bin_dir].append(resumed_serve(args, bin_dir, log, args.dir))
            print(bin_dir, runs[bin_dir][-1], flush=True)
    report = {"rows": args.rows, "batch": args.batch, "ranks": args.ranks, "resubmit": args.resubmit, "runs": runs}
    with open(os.path.join(args.dir, "resume_memory.json"), "w") as out:
        json.dump(report, out, indent=2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
