#!/usr/bin/env python3
"""The GPU corpus through the whole pipeline, on a machine with a GPU.

Writes one mixed candidate file (C candidates for the CPU ranks, CUDA candidates for the GPU
rank: honest kernels of different speeds, the hostile corpus with a good candidate after each
fault, and the CUDA ladder's decisions), runs `jobs/local.sh --np N --gpus G` on it, reads the
log and compares every row with its expected status. With --batch64 it also scores 64 honest
CUDA candidates in one batch and reports the GPU's busy fraction and the latency split. With
--scaling N (on a machine with G >= 2 GPUs) it scores N honest CUDA candidates with
one GPU rank and then with G, and reports the throughput ratio and which devices the rows name.
With --answers the run also scores the CUDA answers of tests/answers/cuda/*.md (model-style
completions, each with its fair status in its header line, tests/answers/answers.py) as a trainer
sends them, as `completion` lines; `|` in a header accepts either status.

  python3 tests/gpu/gpu_corpus.py --out DIR [--np 2] [--gpus G] [--answers] [--batch64] [--scaling N] [--gpu-arg ARG ...]

Exit 0 when every row has its expected status. Prints a table; DIR/report.json keeps it.
"""
import argparse
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "gpu" / "cases"
C_SAMPLES = REPO / "train_bridge" / "samples" / "c"
ANSWERS = REPO / "tests" / "answers"

# (case, problem, stage, expected status). A good candidate follows every fault.
PLAN = [
    ("naive_sgemm", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("naive_dgemm", "cuda-dgemm-1024", "cuda-naive", "ok"),
    ("naive_sgemm", "cuda-sgemm-4096", "cuda-naive", "ok"),
    ("smem_sgemm", "cuda-sgemm-1024", "cuda-smem", "ok"),
    ("smem_sgemm", "cuda-sgemm-4096", "cuda-smem", "ok"),
    ("wmma_hgemm", "cuda-hgemm-1024", "cuda-tensor", "ok"),
    ("wmma_hgemm", "cuda-hgemm-4096", "cuda-open", "ok"),
    ("async_sgemm", "cuda-sgemm-1024", "cuda-async", "ok"),
    ("side_stream_early", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("scans_stack_for_clock", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("opens_file_by_address", "cuda-sgemm-1024", "cuda-naive", "ok"),
    # A candidate in control of its own process, each call found by address in libc.
    ("thread_by_address", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("exec_memory_by_address", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("shm_by_address", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("priority_by_address", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("affinity_by_address", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("metadata_by_address", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    # The driver's functions by pointer (allowed for TMA's tensor maps): a context of its own, a limit.
    ("driver_by_entry_point", "cuda-sgemm-1024", "cuda-naive", "ok"),
    # Bugs that end the process from inside the call: the runtime's teardown runs under the
    # filter, and the status is the bug's.
    ("exits_in_call", "cuda-sgemm-1024", "cuda-naive", "runtime_error"),
    ("aborts_in_call", "cuda-sgemm-1024", "cuda-naive", "runtime_error"),
    ("throws_in_call", "cuda-sgemm-1024", "cuda-naive", "runtime_error"),
    # Take the GPU's memory while the next candidate is set up, or while it starts: that one
    # keeps its status.
    ("takes_gpu_memory", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("takes_gpu_memory_late", "cuda-sgemm-1024", "cuda-naive", "ok"),
    # Honest idioms every pre-run check must let through (tests/cuda_checks/honest_corpus_test.cpp).
    ("honest_device_helper", "cuda-dgemm-1024", "cuda-naive", "ok"),
    ("honest_templates", "cuda-sgemm-1024", "cuda-smem", "ok"),
    ("honest_launch_bounds", "cuda-sgemm-1024", "cuda-smem", "ok"),
    ("honest_dynamic_smem", "cuda-dgemm-1024", "cuda-smem", "ok"),
    ("honest_splitk_workspace", "cuda-dgemm-1024", "cuda-naive", "ok"),
    ("honest_constant_memory", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("honest_streams", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("honest_host_error_checks", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("honest_device_printf", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("honest_coop_shuffle", "cuda-sgemm-1024", "cuda-naive", "ok"),
    ("honest_wmma_dgemm", "cuda-dgemm-1024", "cuda-tensor", "ok"),
    ("honest_wmma_hgemm", "cuda-hgemm-1024", "cuda-tensor", "ok"),
    ("honest_async_alloc", "cuda-dgemm-1024", "cuda-naive", "ok"),
    ("honest_tf32_truncated", "cuda-sgemm-4096", "cuda-tensor", "ok"),
    # CuTe in the stage that allows it (the pinned nvidia-cutlass headers), and not elsewhere.
    ("honest_cute_hgemm", "cuda-hgemm-1024", "cuda-cute", "ok"),
    ("honest_cute_hgemm", "cuda-hgemm-4096", "cuda-cute", "ok"),
    ("honest_cute_hgemm", "cuda-hgemm-1024", "cuda-async", "forbidden"),
    ("cute_load_time_code", "cuda-hgemm-1024", "cuda-cute", "forbidden"),
    # Hopper's TMA and wgmma: required in cuda-hopper, refinements the CuTe stage allows.
    ("honest_cute_tma_wgmma", "cuda-hgemm-4096", "cuda-hopper", "ok"),
    ("honest_cute_tma_wgmma", "cuda-hgemm-1024", "cuda-hopper", "ok"),
    ("honest_cute_tma_wgmma", "cuda-hgemm-1024", "cuda-cute", "ok"),
    ("honest_cute_hgemm", "cuda-hgemm-1024", "cuda-hopper", "constraint_violation"),
    ("illegal_address", "cuda-sgemm-1024", "cuda-naive", "runtime_error"),
    ("naive_sgemm", "cuda-sgemm-1024", "cuda-open", "ok"),
    ("infinite_kernel", "cuda-sgemm-1024", "cuda-naive", "timeout"),
    ("smem_sgemm", "cuda-sgemm-1024", "cuda-open", "ok"),
    ("oob_write", "cuda-sgemm-1024", "cuda-naive", "runtime_error"),
    ("host_memory_bomb", "cuda-sgemm-1024", "cuda-naive", "runtime_error"),
    ("naive_dgemm", "cuda-dgemm-1024", "cuda-naive", "ok"),
    ("wrong_result", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("partial_rows", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("pointer_cache", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("modifies_input", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("fp16_shortcut_sgemm", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("fp16_rescaled_sgemm", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("fp16_row_classes_sgemm", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("timed_zeros_hgemm", "cuda-hgemm-1024", "cuda-tensor", "wrong_answer"),
    ("fp16_accumulate_hgemm", "cuda-hgemm-1024", "cuda-tensor", "wrong_answer"),
    ("timed_large_columns_sgemm", "cuda-sgemm-1024", "cuda-naive", "wrong_answer"),
    ("cublas_header", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("cublas_prototype", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("host_system", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("l2_window", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("device_reset", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    ("graph_replay", "cuda-sgemm-1024", "cuda-naive", "forbidden"),
    # The CUDA ladder's decisions (techniques from the SASS).
    ("smem_sgemm", "cuda-sgemm-1024", "cuda-naive", "constraint_violation"),
    ("naive_sgemm", "cuda-sgemm-1024", "cuda-smem", "constraint_violation"),
    ("smem_sgemm", "cuda-sgemm-1024", "cuda-tensor", "constraint_violation"),
    ("wmma_hgemm", "cuda-hgemm-1024", "cuda-smem", "constraint_violation"),
    ("smem_sgemm", "cuda-sgemm-1024", "cuda-async", "constraint_violation"),
    ("async_sgemm", "cuda-sgemm-1024", "cuda-smem", "constraint_violation"),
]
# Hostile cases whose `ok` is right only at an honest speed: their GFLOPS may exceed their honest
# twin's (same kernel, same problem, the first row of PLAN) by at most TWIN_SLACK.
TWINS = {"side_stream_early": "naive_sgemm", "scans_stack_for_clock": "naive_sgemm",
         "driver_by_entry_point": "naive_sgemm"}
TWIN_SLACK = 1.10
# A file opens_file_by_address.cu tries to overwrite through `open` and `write` reached by pointer arithmetic,
# and metadata_by_address.cu to chmod: the executor's Landlock ruleset and allow-list must leave its
# text and mode as they were.
SENTINEL = pathlib.Path("/tmp/hpcreward-redteam-sentinel")
SENTINEL_TEXT = "the harness's file: a candidate must not change it\n"
# The node's SysV IPC objects (shm_by_address.cu tries to leave a segment behind): the same
# after the run as before it.
SYSV_IPC = [pathlib.Path("/proc/sysvipc") / kind for kind in ("shm", "sem", "msg")]


def sysv_objects():
    return [path.read_text() if path.exists() else "" for path in SYSV_IPC]

# C candidates in the same run: the CPU ranks score them.
C_PLAN = [
    ("ikj", "dgemm-256", "o3", "ok"),
    ("naive_ijk", "dgemm-256", "o0", "ok"),
    ("sgemm_ikj", "sgemm-256", "o3", "ok"),
    ("syntax_error", "dgemm-256", "o3", "compile_error"),
]


def answer_lines(only=None):
    """The CUDA answers (tests/answers/cuda/*.md) as completions: lines and {id: "status[|status]"}."""
    sys.path.insert(0, str(ANSWERS))
    from answers import answers  # noqa: E402
    lines, expected = [], {}
    for answer in answers("cuda"):
        if only and answer.path.stem not in only:
            continue
        cid = f"answer:{answer.name}"
        lines.append({**answer.line(batch_id="gpu-corpus"), "id": cid})
        expected[cid] = "|".join(answer.expect)
    return lines, expected


def corpus_lines(only=None, with_answers=False):
    """Every case of PLAN and C_PLAN (and with `with_answers` the CUDA answers), or with `only`
    (case names) just those."""
    lines, expected = answer_lines(only) if with_answers else ([], {})
    for index, (case, problem, stage, status) in enumerate(PLAN):
        if only and case not in only:
            continue
        cid = f"{case}@{problem}@{stage}#{index}"
        lines.append({"id": cid, "problem": problem, "stage": stage, "batch_id": "gpu-corpus",
                      "source": (CASES / f"{case}.cu").read_text()})
        expected[cid] = status
    for case, problem, stage, status in C_PLAN:
        if only and case not in only:
            continue
        cid = f"c:{case}@{problem}@{stage}"
        lines.append({"id": cid, "problem": problem, "stage": stage, "batch_id": "gpu-corpus",
                      "source": (C_SAMPLES / f"{case}.c").read_text()})
        expected[cid] = status
    return lines, expected


def batch_lines(count=64, batch_id="batch64", prefix="b64"):
    """`count` honest CUDA candidates, each a distinct source (no compile or repeat cache hits)."""
    kinds = [("naive_sgemm", "cuda-sgemm-4096", "cuda-open"), ("smem_sgemm", "cuda-sgemm-4096", "cuda-open"),
             ("async_sgemm", "cuda-sgemm-4096", "cuda-open"), ("wmma_hgemm", "cuda-hgemm-4096", "cuda-open")]
    lines = []
    for index in range(count):
        case, problem, stage = kinds[index % len(kinds)]
        source = (CASES / f"{case}.cu").read_text() + f"\n// variant {index}\n"
        lines.append({"id": f"{prefix}-{index:03d}-{case}", "problem": problem, "stage": stage,
                      "batch_id": batch_id, "source": source})
    return lines


def rate(rows, wall):
    """Candidates per second: steady state (between the first and the last row's write time:
    start-up, the ranks' ceilings and the first compiles are paid once per run) and with start-up."""
    times = sorted(r["time"] for r in rows)
    steady = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else None
    return {"steady_per_s": steady, "with_startup_per_s": len(rows) / wall if wall > 0 else None}


def rank_rates(rows):
    """Each device's own steady rate (between its first and last row) and their sum: what the
    ranks do while all are busy, without the run's ends, where one rank starts later (its
    yardsticks, its first compiles) or runs out of work before another."""
    times = {}
    for r in rows:
        times.setdefault(r["device"], []).append(r["time"])
    per_device = {device: (len(t) - 1) / (max(t) - min(t)) for device, t in times.items() if len(t) > 1 and max(t) > min(t)}
    return {"per_device_per_s": per_device, "sum_per_device_per_s": sum(per_device.values()) if per_device else None}


def read_rows(log):
    import h5py  # the GPU machine's python3 has it
    with h5py.File(log, "r", swmr=True) as f:
        rows = f["rewards"][()]
    text = lambda v: v.decode("utf-8", "replace").rstrip("\0") if isinstance(v, bytes) else str(v)
    return [{name: (text(row[name]) if rows.dtype[name].kind in "SO" else row[name].item())
             for name in rows.dtype.names} for row in rows]


def run_pipeline(out, candidates, np_, gpu_args, gpus=1):
    command = [str(REPO / "jobs" / "local.sh"), "--np", str(np_), "--gpus", str(gpus), "--candidates", str(candidates),
               "--out", str(out)]
    for arg in gpu_args:
        command += ["--gpu-arg", arg]
    start = time.monotonic()
    with open(out.parent / (out.name + ".console.log"), "w") as console:
        done = subprocess.run(command, stdout=console, stderr=subprocess.STDOUT, timeout=1500)
    return done.returncode, time.monotonic() - start


def scaling_runs(out, candidates, gpus, gpu_args):
    """`candidates` honest CUDA candidates with one GPU rank, then with `gpus` (and with two between
    them, so that a 4-GPU machine records 1, 2 and 4): each run's rates, each run's steady rate
    against one rank's, and the ratio of `gpus` to one (steady, with start-up, and of the ranks' own
    rates summed). Returns the report and whether a run failed or lost rows."""
    batch = out / "scaling.jsonl"
    batch.write_text("".join(json.dumps(line) + "\n" for line in batch_lines(candidates, "scaling", "s")))
    runs, failed = {}, False
    for count in sorted({1, min(2, gpus), gpus}):
        rc_s, wall_s = run_pipeline(out / f"scaling-{count}", batch, 0, gpu_args, count)
        log = out / f"scaling-{count}" / "rewards.h5"
        rows_s = read_rows(log) if log.exists() else []
        statuses, devices = {}, {}
        for r in rows_s:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
            devices[r["device"]] = devices.get(r["device"], 0) + 1
        runs[count] = {"exit": rc_s, "wall_s": wall_s, "rows": len(rows_s), "statuses": statuses,
                       "rows_per_device": devices, **rate(rows_s, wall_s), **rank_rates(rows_s)}
        failed |= rc_s != 0 or len(rows_s) != candidates
        print(f"scaling, {count} GPU rank(s): exit {rc_s}, {len(rows_s)} rows {statuses}, wall {wall_s:.0f} s, "
              f"steady {runs[count]['steady_per_s']} /s, with start-up {runs[count]['with_startup_per_s']:.3f} /s, "
              f"rows per device {devices}, each rank's own steady rate "
              + ", ".join(f"{device} {per_s:.3f}/s" for device, per_s in sorted(runs[count]["per_device_per_s"].items())))
    one, many = runs[1], runs[gpus]
    for run in runs.values():
        run["vs_one_rank"] = run["steady_per_s"] / one["steady_per_s"] if one["steady_per_s"] and run["steady_per_s"] else None
    ratio = (many["steady_per_s"] / one["steady_per_s"]) if one["steady_per_s"] and many["steady_per_s"] else None
    ratio_wall = (many["with_startup_per_s"] / one["with_startup_per_s"]
                  if one["with_startup_per_s"] and many["with_startup_per_s"] else None)
    ranks_ratio = (many["sum_per_device_per_s"] / one["sum_per_device_per_s"]
                   if one["sum_per_device_per_s"] and many["sum_per_device_per_s"] else None)
    print(f"scaling: {gpus} GPU ranks / 1, steady {ratio}, with start-up {ratio_wall}, "
          f"the ranks' own rates summed {ranks_ratio} (target >= {0.95 * gpus:.2f})")
    return ({"candidates": candidates, "gpus": gpus, "runs": runs, "steady_ratio": ratio,
             "with_startup_ratio": ratio_wall, "ranks_ratio": ranks_ratio}, failed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--gpus", type=int, default=1, help="GPU ranks for the corpus run and --scaling")
    parser.add_argument("--answers", action="store_true",
                        help="also score tests/answers/cuda/*.md as completions with their headers' statuses")
    parser.add_argument("--batch64", action="store_true")
    parser.add_argument("--scaling", type=int, default=0, metavar="N",
                        help="score N honest CUDA candidates with 1 GPU rank, then with --gpus")
    parser.add_argument("--skip-corpus", action="store_true", help="only --batch64 and --scaling")
    parser.add_argument("--gpu-arg", action="append", default=[])
    parser.add_argument("--only", action="append", default=[], metavar="CASE",
                        help="run only these cases of the corpus (repeatable), e.g. the fp16 ones")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for old in ("corpus", "batch64", "scaling-1", f"scaling-{args.gpus}"):  # local.sh refuses an existing log
        shutil.rmtree(args.out / old, ignore_errors=True)
    report = {}

    failures, rc = 0, 0
    if not args.skip_corpus:
        lines, expected = corpus_lines(set(args.only), args.answers)
        candidates = args.out / "corpus.jsonl"
        candidates.write_text("".join(json.dumps(line) + "\n" for line in lines))
        SENTINEL.write_text(SENTINEL_TEXT)
        SENTINEL.chmod(0o644)
        ipc_before = sysv_objects()
        rc, wall = run_pipeline(args.out / "corpus", candidates, args.np, args.gpu_arg, args.gpus)
        sentinel_kept = (SENTINEL.exists() and SENTINEL.read_text() == SENTINEL_TEXT
                         and (SENTINEL.stat().st_mode & 0o7777) == 0o644)
        ipc_kept = sysv_objects() == ipc_before
        rows = read_rows(args.out / "corpus" / "rewards.h5") if (args.out / "corpus" / "rewards.h5").exists() else []
        by_id = {row["candidate_id"]: row for row in rows}
        failures = 0
        print(f"corpus: local.sh exit {rc}, {len(rows)} rows of {len(expected)}, {wall:.0f} s")
        for cid, status in expected.items():
            row = by_id.get(cid)
            got = row["status"] if row else "(no row)"
            good = got in status.split("|")
            mark = "ok  " if good else "FAIL"
            failures += not good
            detail = f"{row['gflops']:9.1f} GFLOPS  {row['device'][:28]:28s} {row['techniques']:18s} {row['reason'][:90]}" if row else ""
            print(f"{mark} {cid:55s} expect {status:20s} got {got:20s} {detail}")
        for cid, status in expected.items():
            if "@" not in cid:  # an answer, which has no twin
                continue
            case, problem = cid.split("@")[0], cid.split("@")[1]
            twin = next((c for c in expected if case in TWINS and c.startswith(f"{TWINS[case]}@{problem}@")), None)
            if twin is None or cid not in by_id or twin not in by_id or by_id[cid]["status"] != "ok":
                continue
            ratio = by_id[cid]["gflops"] / by_id[twin]["gflops"] if by_id[twin]["gflops"] > 0 else float("inf")
            inflated = ratio > TWIN_SLACK
            failures += inflated
            print(f"{'FAIL' if inflated else 'ok  '} {cid:55s} {ratio:.3f} x its honest twin {twin}")
        failures += (not sentinel_kept) + (not ipc_kept)
        print(f"{'ok  ' if ipc_kept else 'FAIL'} {'/proc/sysvipc':55s} "
              f"{'as before the run' if ipc_kept else 'CHANGED: a candidate left an IPC object'} (shm_by_address)")
        print(f"{'ok  ' if sentinel_kept else 'FAIL'} {str(SENTINEL):55s} "
              f"{'unchanged' if sentinel_kept else 'CHANGED by a candidate'} (opens_file_by_address, metadata_by_address)")
        # Informational: whether the takes_gpu_memory cases ran with a set-up beside them or a
        # run starting after them (the order of compiles decides), so that the rows after them
        # tested the defences.
        console = (args.out / "corpus.console.log").read_text(errors="replace")
        again = sum(int(n) for n in re.findall(r"(\d+) run\(s\) whose set-up failed beside another candidate", console))
        waited = "out of GPU memory before the run before had ended" in console
        print(f"     {'set-ups made again':55s} {again} (takes_gpu_memory: "
              f"{'a set-up beside it failed and was made again' if again else 'nothing was set up beside it this time'})")
        print(f"     {'a run that waited for the run before':55s} {'yes' if waited else 'no'} (takes_gpu_memory_late: "
              f"{'the next run found the memory taken and went again once it was free' if waited else 'not this time'})")
        report["setups_made_again"] = again
        report["waited_for_memory"] = waited
        devices = {}
        for row in rows:
            devices[row["device"]] = devices.get(row["device"], 0) + 1
        print(f"corpus rows per device: {devices}")
        report["corpus"] = {"exit": rc, "wall_s": wall, "rows": len(rows), "expected": len(expected),
                            "failures": failures, "rows_per_device": devices,
                            "rows_detail": [{k: by_id[c][k] for k in ("candidate_id", "status", "gflops", "reason",
                                                                       "techniques", "device", "compile_s", "verify_s",
                                                                       "time_s", "cv", "reps")} for c in expected if c in by_id]}

    if args.batch64:
        batch = args.out / "batch64.jsonl"
        batch.write_text("".join(json.dumps(line) + "\n" for line in batch_lines()))
        rc64, wall64 = run_pipeline(args.out / "batch64", batch, 0, args.gpu_arg)
        rows64 = read_rows(args.out / "batch64" / "rewards.h5")
        console = (args.out / "batch64.console.log").read_text()
        busy = re.search(r"the GPU ran candidates ([0-9.]+) s of ([0-9.]+) s", console)
        phases = re.search(r"per candidate, medians: (.*)", console)
        timing = sum(r["time_s"] for r in rows64)
        split = {key: statistics.median(r[key] for r in rows64) for key in ("compile_s", "verify_s", "time_s")}
        statuses = {}
        for r in rows64:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        # Repeatability: each kernel's 16 scorings (distinct sources of one kernel), max - min over the median.
        by_kernel = {}
        for r in rows64:
            if r["status"] == "ok":
                by_kernel.setdefault(r["candidate_id"].split("-", 2)[2], []).append(r["gflops"])
        spreads = {kernel: (max(g) - min(g)) / statistics.median(g) for kernel, g in by_kernel.items()}
        report["batch64"] = {"exit": rc64, "wall_s": wall64, "statuses": statuses, "spreads": spreads,
                             "gpu_busy_s": float(busy.group(1)) if busy else None,
                             "rank_wall_s": float(busy.group(2)) if busy else None,
                             "timing_s_sum": timing, "median_split_s": split,
                             "phase_medians": phases.group(1) if phases else None,
                             "gflops": {r["candidate_id"]: r["gflops"] for r in rows64}}
        print(f"batch64: exit {rc64}, {statuses}, wall {wall64:.0f} s; GPU running children "
              f"{busy.group(1) if busy else '?'} s of the rank's {busy.group(2) if busy else '?'} s; "
              f"timing phases sum {timing:.1f} s; median split compile/verify/time {split}")
        print(f"batch64 per candidate, medians: {phases.group(1) if phases else '?'}")
        print("batch64 spread of each kernel's scorings (target < 1%): " +
              ", ".join(f"{kernel} {spread:.2%}" for kernel, spread in sorted(spreads.items())))
        # In the order they were scored (the log's order on one rank): a drift with the GPU's
        # clock state shows as a trend, a noisy call as a lone outlier.
        for kernel, g in sorted(by_kernel.items()):
            median = statistics.median(g)
            print(f"batch64 {kernel} scorings / their median, in order: " + " ".join(f"{x / median:.4f}" for x in g))
    scaling_failed = False
    if args.scaling:
        report["scaling"], scaling_failed = scaling_runs(args.out, args.scaling, args.gpus, args.gpu_arg)
    (args.out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    return 0 if failures == 0 and rc == 0 and not scaling_failed else 1


if __name__ == "__main__":
    sys.exit(main())
