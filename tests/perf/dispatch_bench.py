#!/usr/bin/env python3
"""The coordinator's own cost per candidate, with benchmark ranks that answer at once.

Runs the real hpcreward-coordinator (rank 0) with N hpcreward-bench --null-measurement
ranks under mpirun --oversubscribe on a candidate file of C candidates (distinct sources, in
512-candidate batches like GRPO steps) and writes DIR/dispatch.json:

  dispatch_us_per_candidate  wall time from the first row to the last / rows (the idle window
                             below is taken out), at --ranks ranks
  rss_kb_after_10k           rank 0's VmRSS once 10,000 rows are written (or a tenth of a
  rss_kb_after_100k          smaller run) and after the last thousand rows
  rss_ratio_100k_10k         their ratio (target: at most 1.2)
  rank0_cpu_us_per_candidate rank 0's own CPU time (utime + stime) per candidate over the same
                             rows: its cost alone, whatever else the machine runs
  idle_cpu_percent           rank 0's CPU (utime + stime) while every benchmark rank is
                             stopped (SIGSTOP) holding a task: what waiting for results costs
  machine                    CPU model and cores

Null ranks measure nothing (their rows are runtime_error "null measurement"): the numbers
are the coordinator's alone. Standard library only. On a machine with fewer cores than
ranks the ranks share cores with rank 0, so the dispatch cost is an upper bound.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] +\S+ +\S+ +\S+ +(\S+) +reward +(-?[0-9.]+)")
READY = re.compile(r"^\[bench (\d+)\] ready on .* \(pid (\d+),")
BATCH = 512
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def candidate_source(index):
    # Distinct sources, so no cache of identical candidates can answer for the ranks.
    return ("void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
            f"  /* variant {index} */\n"
            "  for (int i = 0; i < m; ++i)\n    for (int j = 0; j < n; ++j) {\n"
            "      double s = 0;\n      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];\n"
            "      C[i * n + j] = s;\n    }\n}\n")


def write_candidates(path, count):
    with open(path, "w") as out:
        for i in range(count):
            out.write(json.dumps({"id": f"c{i}", "batch_id": f"b{i // BATCH}", "source": candidate_source(i)}) + "\n")


def vm_rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu_model": model, "cores": os.cpu_count()}


def read_pid(path, timeout, process):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"dispatch_bench: mpirun exited {process.returncode} before rank 0 started:\n" +
                             process.stdout.read()[-4000:])
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return int(text)
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise SystemExit(f"dispatch_bench: {path} did not appear within {timeout} s")


class Run:
    """One coordinator run; its merged output is read line by line on a thread."""

    def __init__(self, args, candidates, work):
        self.total = candidates
        self.milestone = min(10_000, max(1, candidates // 10))
        self.rows = 0
        self.first_row_at = None
        self.last_row_at = None
        self.rss_at_milestone = None
        self.rss_last = None
        self.cpu_first = None  # (rows, rank 0's CPU seconds) at the first row and the last sample
        self.cpu_last = None
        self.bench_pids = []
        self.tail = []
        self.statuses = {}  # status -> rows, from the progress lines
        self.max_reward = None
        self.null_notice = False  # rank 0 said at start that null ranks are in the run
        self.coordinator_pid = None
        self.lock = threading.Lock()
        out = os.path.join(work, "run")
        env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none",
                   OMPI_MCA_rmaps_base_oversubscribe="1")
        if os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        command = [args.mpirun, "--oversubscribe", "--bind-to", "none",
                   "-np", "1", os.path.join(args.bin, "hpcreward-coordinator"), "--out", out,
                   "--candidates", os.path.join(work, "candidates.jsonl"), "--seed", "1",
                   ":", "-np", str(args.ranks), os.path.join(args.bin, "hpcreward-bench"),
                   "--null-measurement", "--placement", "none"]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        env=env, text=True, bufsize=1)
        # The pid first (rank 0 writes it before any row), so every row line can sample it.
        self.coordinator_pid = read_pid(os.path.join(out, "coordinator.pid"), 120, self.process)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.process.stdout:
            now = time.monotonic()
            match = PROGRESS.match(line)
            if match:
                done = int(match.group(1))
                status, reward = match.group(3), float(match.group(4))
                self.statuses[status] = self.statuses.get(status, 0) + 1
                self.max_reward = reward if self.max_reward is None else max(self.max_reward, reward)
                with self.lock:
                    self.rows = done
                    if self.first_row_at is None:
                        self.first_row_at = now
                        self.cpu_first = (done, self.cpu_seconds())
                    self.last_row_at = now
                if done == self.milestone or done % 1000 == 0 or done == self.total:
                    cpu = self.cpu_seconds()
                    if cpu is not None:
                        self.cpu_last = (done, cpu)
                    rss = vm_rss_kb(self.coordinator_pid)
                    if rss is not None:
                        if done >= self.milestone and self.rss_at_milestone is None:
                            self.rss_at_milestone = rss
                        self.rss_last = rss
                continue
            if line.startswith("NULL MEASUREMENT: "):
                self.null_notice = True
            ready = READY.match(line)
            if ready:
                with self.lock:
                    self.bench_pids.append(int(ready.group(2)))
            self.tail = (self.tail + [line.rstrip()])[-40:]

    def cpu_seconds(self):
        try:
            return cpu_seconds(self.coordinator_pid)
        except OSError:
            return None

    def wait_rows(self, rows, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.rows >= rows:
                    return True
            if self.process.poll() is not None:
                return False
            time.sleep(0.01)
        return False


def measure_idle(run, seconds):
    """Rank 0's CPU while every rank is stopped holding a task: (percent, paused s, CPU s used)."""
    with run.lock:
        pids = list(run.bench_pids)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    began = time.monotonic()
    time.sleep(0.5)  # answers already sent are taken; then rank 0 only waits
    try:
        start_cpu, start = cpu_seconds(run.coordinator_pid), time.monotonic()
        time.sleep(seconds)
        used, elapsed = cpu_seconds(run.coordinator_pid) - start_cpu, time.monotonic() - start
    except OSError:  # rank 0 is gone: it wrote its last row before this script saw the milestone
        raise SystemExit(f"dispatch_bench: the run ended before its idle window ({run.rows} rows seen): rank 0 "
                         "scored the rest before its ranks could be stopped; give more --candidates")
    with run.lock:
        if run.rows >= run.total:
            raise SystemExit(f"dispatch_bench: all {run.rows} rows were written before the idle window ended "
                             "(the ranks were stopped too late to hold a task); give more --candidates")
    for pid in pids:
        os.kill(pid, signal.SIGCONT)
    return 100.0 * used / elapsed, time.monotonic() - began, used


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the build's bin folder (hpcreward-coordinator, hpcreward-bench)")
    parser.add_argument("--out", required=True, help="folder for dispatch.json")
    parser.add_argument("--ranks", type=int, default=16, help="null benchmark ranks (default 16)")
    parser.add_argument("--candidates", type=int, default=100_000, help="candidates to score (default 100000)")
    parser.add_argument("--quick", action="store_true",
                        help="20,000 candidates and a 3 s idle window (under 3 minutes on 2 cores)")
    parser.add_argument("--idle-s", type=float, default=10.0, help="idle window, seconds (default 10)")
    parser.add_argument("--mpirun", default="mpirun", help="the mpirun to use")
    args = parser.parse_args()
    if args.quick:
        args.candidates = min(args.candidates, 20_000)
        args.idle_s = min(args.idle_s, 3.0)
    for name in ("hpcreward-coordinator", "hpcreward-bench"):
        if not os.access(os.path.join(args.bin, name), os.X_OK):
            parser.error(f"--bin {args.bin}: no executable {name} there (build it first)")
    if args.ranks < 1 or args.candidates < 10:
        parser.error("--ranks must be at least 1 and --candidates at least 10")
    if shutil.which(args.mpirun) is None:
        parser.error(f"--mpirun {args.mpirun}: not found")
    os.makedirs(args.out, exist_ok=True)

    work = tempfile.mkdtemp(prefix="dispatch_bench_")
    try:
        write_candidates(os.path.join(work, "candidates.jsonl"), args.candidates)
        run = Run(args, args.candidates, work)
        if not run.wait_rows(run.milestone, 600):
            run.process.kill()
            raise SystemExit("dispatch_bench: the run did not reach its first milestone:\n" + "\n".join(run.tail))
        idle_percent, paused_s, idle_cpu_s = measure_idle(run, args.idle_s)
        code = run.process.wait(timeout=3600)
        run.reader.join()
        if code != 0 or run.rows != args.candidates:
            raise SystemExit(f"dispatch_bench: mpirun exited {code} after {run.rows} of {args.candidates} rows:\n" +
                             "\n".join(run.tail))
        scoring_s = run.last_row_at - run.first_row_at - paused_s
        (rows_first, cpu_first), (rows_last, cpu_last) = run.cpu_first, run.cpu_last
        rank0_cpu_us = 1e6 * (cpu_last - cpu_first - idle_cpu_s) / max(1, rows_last - rows_first)
        report = {
            "dispatch_us_per_candidate": 1e6 * scoring_s / max(1, args.candidates - 1),
            "ranks": args.ranks,
            "candidates": args.candidates,
            "rank0_cpu_us_per_candidate": rank0_cpu_us,
            "rss_milestone_rows": run.milestone,
            "rss_kb_after_10k": run.rss_at_milestone,
            "rss_kb_after_100k": run.rss_last,
            "rss_ratio_100k_10k": run.rss_last / run.rss_at_milestone,
            "idle_cpu_percent": idle_percent,
            "idle_window_s": args.idle_s,
            "scoring_s": scoring_s,
            "machine": machine(),
            "quick": args.quick,
            # What null ranks must look like: every row a runtime_error with a penalty, and
            # rank 0 saying so at start.
            "row_statuses": run.statuses,
            "max_reward": run.max_reward,
            "null_notice": run.null_notice,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(args.out, "dispatch.json"), "w") as out:
        json.dump(report, out, indent=2)
        out.write("\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
