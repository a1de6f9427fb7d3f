#!/usr/bin/env python3
"""The generator's Hopper genomes (train_bridge/generator/hpcreward_generator/hopper_kernels.py)
on a Hopper GPU: correct at odd and aligned shapes, and how fast at 4096 beside cuBLAS's HGEMM.

Each genome is rendered as the generator renders it for cuda-hgemm-4096 in stage cuda-hopper,
compiled with the GPU rank's command (bench_node/cuda/README.md, "Compiling": -shared -cudart
shared, sm_90a, the iostream shim, CuTe's headers, -O3, the export list, -z defs) and its SASS
looked at (HGMMA, UTMALDG); then tests/gpu/hopper_gemm_probe.cu loads each object in a process
of its own (a deadlock or a fault stops that genome alone), checks C against cuBLAS's
fp32-accumulated product at every shape (|C - ref| <= 1e-2 (|A||B|)_ij; C starts as NaN) and
times the 4096 shape (median of 20 calls after 3, cudaEvent), and cuBLAS HGEMM
(cublasGemmEx, fp16 in and out, fp32 accumulation) in the same run.

  python3 tests/gpu/hopper_gemm_probe.py --cute-include /usr/local/lib/hpcreward/cutlass-4.2.0/include
  python3 tests/gpu/hopper_gemm_probe.py --cute-include DIR --genomes h128x256x64-s4-w2-P-c1-g8,... [--bf16]
  python3 tests/gpu/hopper_gemm_probe.py --cute-include DIR --compile-only     # no GPU needed

One line per genome and shape. Exit 0 when every genome is right at every shape; 1 when one
is not (or did not compile); 3 without a Hopper GPU (the reason is printed).
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "train_bridge" / "generator"))
from hpcreward_generator import hopper_kernels as hk  # noqa: E402

HARNESS = REPO / "tests" / "gpu" / "hopper_gemm_probe.cu"
# Genomes worth a look: the tuned default, then one switch or tile at a time, and the smallest.
DEFAULT_GENOMES = [
    "h128x256x64-s4-w2-P-c1-g8",
    "h128x256x64-s4-w2-P-c2-g8",
    "h128x256x64-s4-w2-P-c1-g1",
    "h128x256x64-s3-w2-P-c1-g8",
    "h128x256x64-s4-w2-n-c1-g8",
    "h256x128x64-s4-w2-P-c1-g8",
    "h256x128x64-s4-w2-P-c2-g8",
    "h128x192x64-s5-w2-P-c1-g8",
    "h128x128x64-s6-w2-P-c1-g8",
    "h128x128x64-s5-w1-P-c2-g8",
    "h128x128x64-s4-w1-n-c2-g1",
    "h64x256x64-s5-w1-P-c1-g8",
    "h64x64x64-s2-w1-n-c1-g1",
]
TIMED = "4096x4096x4096"
# Odd shapes (the rank's 31x17x23 and 4097x4095x4103 for cuda-hgemm-4096: the fallback), tiles
# cut at every edge through TMA (1000, 200x136x72, a few rows), k or n not a multiple of 8, and
# operands one element off 16 bytes (+1): then the timed shape.
SHAPES = ["31x17x23", "64x64x64", "1000x1000x1000", "200x136x72", "8x264x4096", "128x256x100", "264x264x264+1",
          "4097x4095x4103", TIMED]
# The rank's compile (bench_node/cuda/README.md, "Compiling"); -isystem shim and CuTe come first.
RANK_FLAGS = ["-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-gencode=arch=compute_90a,code=sm_90a"]
SHIM = ("#pragma once\n#include <istream>\n#include <ostream>\n"
        "namespace std {\nextern istream cin;\nextern ostream cout;\nextern ostream cerr;\nextern ostream clog;\n}\n")
EXPORTS = "{ global: matmul; _Z6matmul*; local: *; };\n"


def find_tool(name, nvcc):
    for candidate in (shutil.which(name), pathlib.Path(nvcc).parent / name,
                      pathlib.Path("/usr/local/lib/hpcreward/cuda-tools/bin") / name):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    return None


def compile_candidate(nvcc, cute, work, label, source):
    cu = work / f"{label}.cu"
    so = work / f"{label}.so"
    cu.write_text(source)
    command = [nvcc, *RANK_FLAGS, "-isystem", str(work / "iostream-shim"), "-isystem", str(cute), "-O3",
               "-Xcompiler", "-ffunction-sections", "-Xlinker", f"--gc-sections,--version-script={work / 'cand.exports'}",
               "-Xlinker", "-z,defs", "-o", str(so), str(cu)]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        return None, seconds, (done.stdout + done.stderr).strip()[-1500:]
    return so, seconds, ""


def sass_summary(cuobjdump, so):
    if cuobjdump is None:
        return "SASS not read (no cuobjdump)"
    env = dict(os.environ, NVDISASM_PATH=str(pathlib.Path(cuobjdump).parent))
    env["PATH"] = str(pathlib.Path(cuobjdump).parent) + os.pathsep + env.get("PATH", "")
    done = subprocess.run([cuobjdump, "-sass", "-res-usage", str(so)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        return f"cuobjdump failed: {done.stderr.strip()[:200]}"
    text = done.stdout
    gmma = sorted(set(re.findall(r"\bHGMMA\.(\d+x\d+x\d+)", text)))
    tma = len(re.findall(r"\bUTMALDG\b", text))
    regs = re.search(r"REG:(\d+)", text)
    return (f"HGMMA {'/'.join(gmma) or 'none'} ({len(re.findall(r'HGMMA', text))}), UTMALDG {tma}"
            + (" multicast" if "UTMALDG.2D.MULTICAST" in text else "") + (f", {regs[1]} registers" if regs else ""))


def run(command, timeout):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        return None, out, "timed out"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cute-include", required=True, type=pathlib.Path, help="CUTLASS's include directory (cute/, cutlass/)")
    parser.add_argument("--genomes", default=",".join(DEFAULT_GENOMES), help="comma-separated HopperGenome labels")
    parser.add_argument("--bf16", action="store_true", help="bf16 operands and output (default fp16)")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated MxNxK[+1] (default {','.join(SHAPES)})")
    parser.add_argument("--time", default=TIMED, help="the shape timed (one of --shapes)")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    parser.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 2), help="compiles at once")
    parser.add_argument("--timeout", type=float, default=90, help="seconds per genome's run")
    parser.add_argument("--work", type=pathlib.Path, help="keep sources and objects here (default: a temporary directory)")
    parser.add_argument("--compile-only", action="store_true", help="compile and read the SASS; no GPU needed")
    args = parser.parse_args(argv)

    precision = "bf16" if args.bf16 else "f16"
    if not (args.cute_include / "cute" / "tensor.hpp").is_file():
        parser.error(f"{args.cute_include} has no cute/tensor.hpp")
    if not pathlib.Path(args.nvcc).is_file():
        parser.error(f"nvcc not found ({args.nvcc}); give --nvcc")
    try:
        genomes = [hk.HopperGenome.from_label(label.strip()) for label in args.genomes.split(",") if label.strip()]
    except ValueError as error:
        parser.error(str(error))
    for genome in genomes:
        if hk.problems(genome, precision):
            parser.error(f"{genome.label()}: {'; '.join(hk.problems(genome, precision))}")
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]

    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="hopper-probe-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "iostream-shim").mkdir(exist_ok=True)
    (work / "iostream-shim" / "iostream").write_text(SHIM)
    (work / "cand.exports").write_text(EXPORTS)
    harness = work / "hopper_gemm_probe"
    cuobjdump = find_tool("cuobjdump", args.nvcc)

    if not args.compile_only:  # the GPU first: without one, say so before minutes of compiling
        built = subprocess.run([args.nvcc, "-O2", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-o", str(harness),
                                str(HARNESS), "-lcublas", "-ldl"], capture_output=True, text=True, timeout=600)
        if built.returncode != 0:
            print(f"the probe program does not compile:\n{(built.stdout + built.stderr)[-2000:]}")
            return 1
        code, out, err = run([str(harness), "--device"], 60)
        if code != 0:
            print(err.strip() or out.strip() or "the probe program could not start")
            return 3 if code == 3 else 1
        print(out.strip())
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        jobs = {genome: pool.submit(compile_candidate, args.nvcc, args.cute_include, work, genome.label(),
                                    hk.render_hopper(genome, precision)) for genome in genomes}
        compiled = {}
        failed = 0
        for genome, job in jobs.items():
            so, seconds, log = job.result()
            if so is None:
                failed += 1
                print(f"{genome.label():28s} compile FAILED ({seconds:.0f} s)\n{log}")
                continue
            compiled[genome] = so
            print(f"{genome.label():28s} compiled in {seconds:.0f} s: {sass_summary(cuobjdump, so)}")
        sys.stdout.flush()
    if args.compile_only:
        print(f"objects in {work}")
        return 1 if failed else 0

    bf16 = ["--bf16"] if args.bf16 else []
    code, out, err = run([str(harness), "--cublas", args.time, *bf16], 120)
    cublas = re.search(r"^TIME \S+ (\S+) (\S+)$", out, re.M)
    cublas_tflops = float(cublas[2]) if cublas else None
    print(f"{'cuBLAS (cublasGemmEx)':28s} {args.time:16s} " +
          (f"{float(cublas[1]):.3f} ms {cublas_tflops:6.1f} TFLOPS" if cublas else f"no timing: {err.strip()[-300:]}"))
    best = None
    for genome, so in compiled.items():
        code, out, err = run([str(harness), "--so", str(so), "--time", args.time, *bf16, *shapes], args.timeout)
        seen = set()
        for line in out.splitlines():
            check = re.match(r"CHECK (\S+) (ok|FAIL) (.*)$", line)
            timing = re.match(r"TIME (\S+) (\S+) (\S+)$", line)
            if check:
                seen.add(check[1])
                print(f"{genome.label():28s} {check[1]:16s} {check[2]:4s} {check[3]}")
            elif timing:
                tflops = float(timing[3])
                share = f" ({100 * tflops / cublas_tflops:.1f}% of cuBLAS)" if cublas_tflops else ""
                print(f"{genome.label():28s} {timing[1]:16s} time {float(timing[2]):.3f} ms {tflops:6.1f} TFLOPS{share}")
                if code == 0 and (best is None or tflops > best[1]):
                    best = (genome.label(), tflops)
        if code != 0:
            failed += 1
            missing = [s for s in shapes if s not in seen]
            reason = "timed out (a deadlock?)" if code is None else f"exit {code}: {err.strip()[-300:]}"
            print(f"{genome.label():28s} FAILED: {reason}" + (f"; not checked: {', '.join(missing)}" if missing else ""))
        sys.stdout.flush()
    if best:
        share = f", {100 * best[1] / cublas_tflops:.1f}% of cuBLAS" if cublas_tflops else ""
        print(f"best at {args.time}: {best[0]} {best[1]:.1f} TFLOPS{share}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
