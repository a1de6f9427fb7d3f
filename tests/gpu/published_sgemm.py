#!/usr/bin/env python3
"""siboehm/SGEMM_CUDA's kernels 6, 7 and 8 through the harness and in their own runner's way, on a GPU machine.

Each kernel becomes a candidate for cuda-sgemm-4096 in stage cuda-smem (shared-memory tiles
required; no tensor cores, no cp.async: what these kernels are): its .cuh as published, inlined,
but for two lines (the cuBLAS header, which nothing in it calls and the source checks refuse;
beta's read of C, since the harness hands matmul a C of NaN and beta * NaN is NaN even for
beta 0), and an `extern "C" matmul` that launches it with its runner's 128x128 configuration
where its tiles fit and a naive kernel for the checks' other shapes (the kernels have no bounds
checks). Each kernel is scored twice (two sources, so the repeat cache measures both) through
`jobs/local.sh --np 0 --gpus 1`; then tests/gpu/published_kernel_probe.cu times the same kernels
as their runner does (50 calls back to back, the mean) and three other ways, and the table puts
the harness's TFLOPS beside the runner's (docs/reward-integrity.md, "Timing on these inputs":
within 3% on the earlier inputs).

The kernels are not in this repository and the GPU machine has no network: they are read from
.gpu-deps/sgemm_cuda/ (git-ignored, carried with .gpu-deps), made on a machine that has the
repository's history, a clone or a bare copy:

  git clone https://github.com/siboehm/SGEMM_CUDA /tmp/SGEMM_CUDA
  python3 tests/gpu/published_sgemm.py --fetch-from /tmp/SGEMM_CUDA    # HEAD's src/kernels/, COMMIT, LICENSE

Then, on the GPU machine (after device-build.sh):

  . ./build-gpu.env; HPCREWARD_BIN=$PWD/build-gpu/bin python3 tests/gpu/published_sgemm.py --out DIR [--rounds 3] [--skip-probe]

--dry-run (no GPU) writes the candidates and compiles each as the harness does, and the probe.
Exit 0 when every candidate is `ok` and the probe ran (the 3% is reported, not judged);
1 otherwise; 2 without .gpu-deps/sgemm_cuda. DIR/report.json keeps the table and the rows.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_corpus import REPO, read_rows, run_pipeline  # noqa: E402

DEPS = REPO / ".gpu-deps" / "sgemm_cuda"
KERNELS_DIR = DEPS / "src" / "kernels"
PROBE = REPO / "tests" / "gpu" / "published_kernel_probe.cu"
PROBLEM = "cuda-sgemm-4096"
STAGE = "cuda-smem"
# kernel: (file, template) as the probe includes and launches them.
KERNELS = {6: ("6_kernel_vectorize.cuh", "sgemmVectorize"),
           7: ("7_kernel_resolve_bank_conflicts.cuh", "sgemmResolveBankConflicts"),
           8: ("8_kernel_bank_extra_col.cuh", "sgemmResolveBankExtraCol")}
COPIES = 2
TOLERANCE = 0.03  # the earlier run's claim: harness / runner within 3%
# The harness's compile (bench_node/cuda/README.md, "Compiling"), less its shim and export list.
HARNESS_NVCC = ["-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-gencode=arch=compute_90a,code=sm_90a", "-O3"]
PROBE_NVCC = ["-O3", "-std=c++17", "-arch=sm_90"]  # the probe's header

CUBLAS_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]cublas[^>"]*[>"][^\n]*\n', re.M)
# The epilogue's load of C into tmp, and the four `+ beta * tmp.x` terms that read it.
C_LOAD = re.compile(r"float4 tmp = reinterpret_cast<float4 \*>\(\s*&C\[[^;]*?\]\)\[0\];")
BETA_TERM = re.compile(r"\s*\+\s*beta\s*\*\s*tmp\.[xyzw]")

ENTRY = string.Template(r"""
// The harness's entry. The kernel's tiles have no bounds checks: its runner's 128x128
// configuration only where m and n are multiples of 128 and k of 8 (the timed shape), a naive
// kernel for the checks' odd shapes.
__global__ void naive_fallback(int m, int n, int k, const float *A, const float *B, float *C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i) sum += A[row * k + i] * B[i * n + col];
  C[row * n + col] = sum;
}

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  if (m % BM == 0 && n % BN == 0 && k % BK == 0) {
    const dim3 grid(CEIL_DIV(n, BN), CEIL_DIV(m, BM)), block((BM * BN) / (TM * TN));
    // The published signature takes A and B as float *; it only reads them.
    ${kernel}<BM, BN, BK, TM, TN><<<grid, block>>>(m, n, k, 1.0f, const_cast<float *>(A),
                                                   const_cast<float *>(B), 0.0f, C);
  } else {
    const dim3 block(16, 16), grid(CEIL_DIV(n, 16), CEIL_DIV(m, 16));
    naive_fallback<<<grid, block>>>(m, n, k, A, B, C);
  }
}
""")


def fetch_from(git_dir, dest=None):
    """src/kernels/*.cuh of HEAD (and any file they include by quotes), the commit and the
    license, from a clone or bare copy of siboehm/SGEMM_CUDA into `dest`. Returns the commit."""
    git_dir, dest = pathlib.Path(git_dir), pathlib.Path(dest or DEPS)
    if (git_dir / ".git").exists():
        git_dir = git_dir / ".git"
    git = lambda *a: subprocess.run(["git", "--git-dir", str(git_dir), *a], check=True, capture_output=True).stdout
    commit = git("rev-parse", "HEAD").decode().strip()
    names = [n for n in git("ls-tree", "--name-only", "HEAD", "src/kernels/").decode().split() if n.endswith(".cuh")]
    if not all(f"src/kernels/{KERNELS[k][0]}" in names for k in KERNELS):
        raise SystemExit(f"{git_dir} at {commit} lacks one of {[v[0] for v in KERNELS.values()]} in src/kernels/")
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "src" / "kernels").mkdir(parents=True)
    pending, done = list(names), set()
    while pending:
        name = pending.pop()
        if name in done:
            continue
        done.add(name)
        text = git("show", f"HEAD:{name}")
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / name).write_bytes(text)
        for included in re.findall(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', text, re.M):
            pending.append(os.path.normpath(os.path.join(os.path.dirname(name), included.decode())))
    (dest / "LICENSE").write_bytes(git("show", "HEAD:LICENSE"))
    (dest / "COMMIT").write_text(commit + "\n")
    # As fetch-device-deps.sh does: .gpu-deps/ stays out of git.
    exclude = pathlib.Path(subprocess.run(["git", "-C", str(REPO), "rev-parse", "--git-common-dir"], check=True,
                                          capture_output=True, text=True).stdout.strip())
    exclude = (exclude if exclude.is_absolute() else REPO / exclude) / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    if "/.gpu-deps/" not in (exclude.read_text().splitlines() if exclude.exists() else []):
        with open(exclude, "a") as f:
            f.write("/.gpu-deps/\n")
    return commit


def as_candidate_kernel(text):
    """A published .cuh as a candidate may hold it: without the cuBLAS header and without beta's
    read of C. Anything but one load of C and four beta terms means the file is not the one this
    was written for, and the kernel is not taken as published."""
    text = CUBLAS_INCLUDE.sub("", text)
    text, loads = C_LOAD.subn("float4 tmp;  // beta's read of C dropped: the harness's C holds NaN", text)
    text, terms = BETA_TERM.subn("", text)
    if loads != 1 or terms != 4:
        raise ValueError(f"expected one load of C and four beta terms in the epilogue, found {loads} and {terms}")
    return text


def candidate_source(kernel, published, copy, commit="?"):
    """The .cu of one candidate: the kernel's .cuh (as_candidate_kernel) and the matmul entry; `copy`
    makes each a source of its own."""
    file, template = KERNELS[kernel]
    return (f"// siboehm/SGEMM_CUDA {commit}, src/kernels/{file} (MIT), as published but for the cuBLAS header\n"
            f"// and beta's read of C (the harness's C holds NaN on entry).\n"
            + as_candidate_kernel(published).rstrip("\n") + "\n" + ENTRY.substitute(kernel=template)
            + f"// copy {copy}\n")


def candidate_id(kernel, copy):
    return f"sgemm_cuda_{kernel}#{copy}"


def candidate_lines(kernels_dir, commit="?", copies=COPIES):
    """The JSON Lines of the run: every kernel `copies` times, interleaved (6, 7, 8, 6, 7, 8)."""
    published = {k: (pathlib.Path(kernels_dir) / file).read_text() for k, (file, _) in KERNELS.items()}
    return [{"id": candidate_id(k, copy), "problem": PROBLEM, "stage": STAGE, "batch_id": "published-sgemm",
             "source": candidate_source(k, published[k], copy, commit)} for copy in range(copies) for k in KERNELS]


def parse_probe(text):
    """The probe's table: {"size", "ways", "rows": [{"round", "kernel", "tflops": {way: x}, "mhz": {way: y}}]}."""
    size = re.search(r"^(\d+)\^3, TFLOPS", text, re.M)
    header = re.search(r"^round kernel\s+(.*)$", text, re.M)
    if not size or not header:
        raise ValueError("no table in the probe's output")
    ways = header.group(1).split()
    rows = []
    for line in text.splitlines():
        fields = re.match(r"^\s*(\d+)\s+(\d+)((?:\s+[0-9.]+\s+\(\s*[0-9.]+\))+)\s*$", line)
        if not fields:
            continue
        pairs = re.findall(r"([0-9.]+)\s+\(\s*([0-9.]+)\)", fields.group(3))
        if len(pairs) != len(ways):
            raise ValueError(f"a probe line with {len(pairs)} figures for {len(ways)} ways: {line!r}")
        rows.append({"round": int(fields.group(1)), "kernel": int(fields.group(2)),
                     "tflops": {w: float(t) for w, (t, _) in zip(ways, pairs)},
                     "mhz": {w: float(m) for w, (_, m) in zip(ways, pairs)}})
    return {"size": int(size.group(1)), "ways": ways, "rows": rows}


def summarize(rows, probe, kernels=KERNELS, copies=COPIES):
    """Per kernel: each copy's status and harness TFLOPS, the probe's median over its rounds of each
    way, and the harness's mean over its `ok` copies against the runner's way."""
    by_id = {row["candidate_id"]: row for row in rows}
    table = []
    for kernel in kernels:
        copies_ = [by_id.get(candidate_id(kernel, copy)) for copy in range(copies)]
        statuses = [row["status"] if row else "(no row)" for row in copies_]
        harness = [row["gflops"] / 1e3 if row and row["status"] == "ok" else None for row in copies_]
        ways = {}
        for way in (probe["ways"] if probe else []):
            figures = [r["tflops"][way] for r in probe["rows"] if r["kernel"] == kernel]
            ways[way] = statistics.median(figures) if figures else None
        runner = ways.get("runner")
        ok = [t for t in harness if t is not None]
        mean = statistics.fmean(ok) if ok else None
        ratio = mean / runner if mean is not None and runner else None
        table.append({"kernel": kernel, "statuses": statuses, "harness_tflops": harness, "harness_mean_tflops": mean,
                      "reasons": [row["reason"] if row else "" for row in copies_],
                      "techniques": [row["techniques"] if row else "" for row in copies_],
                      "probe_tflops": ways, "runner_tflops": runner, "ratio": ratio,
                      "copy_ratios": [t / runner if t is not None and runner else None for t in harness],
                      "within_tolerance": None if ratio is None else abs(ratio - 1) <= TOLERANCE})
    return table


def print_table(table):
    fig = lambda x: f"{x:8.2f}" if x is not None else f"{'-':>8}"
    ways = [w for w in (table[0]["probe_tflops"] if table else {}) if w != "runner"]
    width = 9 * len(table[0]["harness_tflops"]) - 1 if table else 8
    print(f"{'kernel':>6}  {'harness TFLOPS':>{width}}  {'runner':>8}  {'harness/runner':<20}"
          + "".join(f"  {w:>8}" for w in ways) + "  statuses")
    for row in table:
        judged = {None: "", True: f"within {TOLERANCE:.0%}", False: f"OUTSIDE {TOLERANCE:.0%}"}[row["within_tolerance"]]
        ratio = f"{row['ratio']:.3f} {judged}" if row["ratio"] is not None else "-"
        print(f"{row['kernel']:>6}  {' '.join(fig(t) for t in row['harness_tflops'])}  {fig(row['runner_tflops'])}  "
              f"{ratio:<20}" + "".join(f"  {fig(row['probe_tflops'][w])}" for w in ways) + "  " + " ".join(row["statuses"]))
        for status, reason in zip(row["statuses"], row["reasons"]):
            if status != "ok":
                print(f"        {status}" + (f": {reason[:160]}" if reason else ""))


def nvcc():
    return os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def compile_probe(binary):
    command = [nvcc(), *PROBE_NVCC, "-I", str(KERNELS_DIR), "-o", str(binary), str(PROBE)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    return command, done


def dry_run(out, lines):
    """Each candidate compiled as the harness compiles it, and the probe; no GPU needed. The checks
    before the run (source checks, object audit, SASS techniques) are the rank's and not repeated here."""
    work = out / "dry-run"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    def build(line):
        source = work / (line["id"].replace("#", "-") + ".cu")
        source.write_text(line["source"])
        done = subprocess.run([nvcc(), *HARNESS_NVCC, "-o", str(source.with_suffix(".so")), str(source)],
                              capture_output=True, text=True, timeout=300)
        return line["id"], done

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        probe = pool.submit(compile_probe, work / "published_kernel_probe")
        for cid, done in pool.map(build, lines):
            failures += done.returncode != 0
            print(f"{'ok  ' if done.returncode == 0 else 'FAIL'} {cid:20s} nvcc as the harness "
                  + ("" if done.returncode == 0 else done.stderr[-2000:]))
        command, done = probe.result()
        failures += done.returncode != 0
        print(f"{'ok  ' if done.returncode == 0 else 'FAIL'} {'probe':20s} {' '.join(command)} "
              + ("" if done.returncode == 0 else done.stderr[-2000:]))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--rounds", type=int, default=3, help="the probe's rounds (each times every way of every kernel)")
    parser.add_argument("--skip-probe", action="store_true", help="only the harness's figures")
    parser.add_argument("--dry-run", action="store_true", help="write and compile the candidates and the probe; no GPU")
    parser.add_argument("--fetch-from", type=pathlib.Path, metavar="GITDIR",
                        help="make .gpu-deps/sgemm_cuda from a clone or bare copy of siboehm/SGEMM_CUDA, and exit")
    args = parser.parse_args()
    if args.fetch_from:
        commit = fetch_from(args.fetch_from)
        print(f"{DEPS}: siboehm/SGEMM_CUDA {commit}, "
              f"{len(list(KERNELS_DIR.glob('*.cuh')))} kernel files")
        return 0
    if args.out is None:
        parser.error("--out DIR is required (or --fetch-from GITDIR)")
    if not all((KERNELS_DIR / file).is_file() for file, _ in KERNELS.values()):
        print(f"published_sgemm: no {KERNELS_DIR} (made with --fetch-from: the head of {__file__})", file=sys.stderr)
        return 2
    commit = (DEPS / "COMMIT").read_text().strip() if (DEPS / "COMMIT").exists() else "?"
    args.out.mkdir(parents=True, exist_ok=True)
    lines = candidate_lines(KERNELS_DIR, commit=commit)
    candidates = args.out / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if args.dry_run:
        return 1 if dry_run(args.out, lines) else 0

    report = {"sgemm_cuda_commit": commit, "problem": PROBLEM, "stage": STAGE, "copies": COPIES, "tolerance": TOLERANCE}
    failures = 0
    probe_binary = None
    scratch = tempfile.TemporaryDirectory()
    if not args.skip_probe:  # compiled first: a probe that does not build ends the run before the GPU's time
        start = time.monotonic()
        command, done = compile_probe(pathlib.Path(scratch.name) / "published_kernel_probe")
        report["probe_compile"] = {"command": command, "exit": done.returncode, "wall_s": time.monotonic() - start}
        if done.returncode != 0:
            print(f"probe: nvcc failed\n{done.stderr[-4000:]}")
            failures += 1
        else:
            probe_binary = command[command.index("-o") + 1]

    run = args.out / "harness"
    shutil.rmtree(run, ignore_errors=True)  # local.sh refuses an existing log
    rc, wall = run_pipeline(run, candidates, 0, [], 1)
    rows = read_rows(run / "rewards.h5") if (run / "rewards.h5").exists() else []
    print(f"harness: local.sh exit {rc}, {len(rows)} rows of {len(lines)}, {wall:.0f} s")
    report["harness"] = {"exit": rc, "wall_s": wall, "rows": [
        {k: row[k] for k in ("candidate_id", "status", "gflops", "reason", "techniques", "device", "compile_s",
                             "verify_s", "time_s", "cv", "reps") if k in row} for row in rows]}
    failures += rc != 0

    probe = None
    if probe_binary:
        start = time.monotonic()
        done = subprocess.run([probe_binary, "4096", str(args.rounds)], capture_output=True, text=True, timeout=600)
        (args.out / "probe.txt").write_text(done.stdout + done.stderr)
        report["probe"] = {"exit": done.returncode, "wall_s": time.monotonic() - start, "output": done.stdout,
                           "stderr": done.stderr}
        try:
            probe = parse_probe(done.stdout) if done.returncode == 0 else None
        except ValueError as error:
            print(f"probe: {error}")
        if probe is None or not probe["rows"]:
            print(f"probe: exit {done.returncode}, no figures\n{done.stderr[-2000:]}")
            failures += 1
        else:
            report["probe"]["parsed"] = probe
            print(f"probe: {len(probe['rows'])} lines ({args.rounds} rounds), {report['probe']['wall_s']:.0f} s")
    scratch.cleanup()

    table = summarize(rows, probe)
    failures += sum(status != "ok" for row in table for status in row["statuses"])
    report["kernels"] = table
    report["failures"] = failures
    print(f"siboehm/SGEMM_CUDA {commit[:12]} at {PROBLEM}, stage {STAGE}; harness / runner is the mean of the "
          f"copies over the probe's median of rounds")
    print_table(table)
    (args.out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
