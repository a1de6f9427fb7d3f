#!/usr/bin/env python3
"""CUDA-L2's published HGEMM kernels as candidates: each file as published, its torch binding
replaced by the harness's entry point, for the `cuda-l2` catalog (docs/problems.md).

Every file of deepreinforce-ai/CUDA-L2's kernels/<gpu>_<config>/ is named M_N_K.cu and ends
with a function of torch tensors (a, b, b_col_major, c) that reads their pointers and sizes and
launches the file's kernels. Here the `#include <torch/...>` lines go, and that function becomes

  extern "C" void matmul(int m, int n, int k, const half *matmul_A, const half *matmul_B, half *matmul_C)

with the same statements, over views named as its tensors were (`a.data_ptr()` is A,
`b.data_ptr()` and `b_col_major.data_ptr()` B, `a.size(0)` m and so on), so that the statements
and the file's macros they expand stay as published; its checks of the tensors' types and
shapes (`CHECK_TORCH_*`, `TORCH_CHECK`) are dropped. Nothing else of the file changes. A kernel that launches on `b_col_major` is a candidate for the problem
`l2-MxNxK-nt` (B given n x k), one on `b` for `l2-MxNxK-nn`. A binding that uses torch beyond
the tensors' pointers and sizes is left out, with the reason.

The folder's configuration names the accumulation (CuTe's MMA order: D, A, B, C): the kernels of
an F16F16F16F16 folder (kernels/a100_F16F16F16F16, fp16 accumulators) are candidates for the
fp16-accumulation problems, `l2-MxNxK-nt-f16acc` and `-nn-f16acc`; those of an F32...F32 folder
(h100_F32F16F16F32, the default) for the fp32-accumulation ones. --folder picks the folder,
--accumulation overrides what its name says.

The kernels are not in this repository: read them from a clone or a bare copy,

  python3 tests/gpu/cuda_l2_candidates.py --fetch-from CLONE      # into .gpu-deps/cuda_l2/ (HEAD, COMMIT, LICENSE, eval_results)
  python3 tests/gpu/cuda_l2_candidates.py --out l2.jsonl [--sample 50 --seed 1] [--stage cuda-cute] [--compile DIR]
  python3 tests/gpu/cuda_l2_candidates.py --folder a100_F16F16F16F16 --out l2-f16acc.jsonl   # the fp16-accumulation ones

then score them on a GPU machine (after device-build.sh; .gpu-deps carried):

  jobs/local.sh --problems cuda-l2 --np 0 --gpus 1 --candidates l2.jsonl --reward-mode speedup:cublas --out runs/l2

and tabulate the run beside their published speedups with cuda_l2_report.py.

--compile DIR compiles each candidate as the harness does (no GPU needed; bench_node/cuda/README.md,
"Compiling", less its shim and export list) and tallies what nvcc says. Exit 0 when every
chosen file became a candidate (and compiled, with --compile); 1 otherwise.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from published_sgemm import HARNESS_NVCC, REPO, nvcc  # noqa: E402

DEPS = REPO / ".gpu-deps" / "cuda_l2"
FOLDER = "h100_F32F16F16F32"
# What --fetch-from copies: the default folder and the fp16-accumulation one.
FOLDERS = (FOLDER, "a100_F16F16F16F16")
CONFIG = re.compile(r"_(F(?:16|32))(F(?:16|32))(F(?:16|32))(F(?:16|32))$")
F16ACC = "-f16acc"  # the fp16-accumulation problems' ids: l2-MxNxK-nt-f16acc
STAGE = "cuda-cute"
NAME = re.compile(r"^(\d+)_(\d+)_(\d+)\.cu$")
TORCH_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]torch/[^>"]*[>"][^\n]*\n', re.M)
# The binding: a function whose parameters are torch tensors (and perhaps M, N, K).
BINDING = re.compile(r"\n[ \t]*void[ \t]+(\w+)[ \t]*\(([^)]*torch::Tensor[^)]*)\)\s*\{")
CHECK_LINE = re.compile(r"^[ \t]*CHECK_TORCH_\w+\([^;\n]*\)[ \t;]*\n", re.M)
TORCH_CHECK = re.compile(r"^[ \t]*TORCH_CHECK\s*\((?:[^;]|\n)*?\);[ \t]*\n", re.M)
# `a.data_ptr<at::Half>()`: the same pointer (the statements cast it to half themselves).
TYPED_POINTER = re.compile(r"\.data_ptr\s*<\s*(?:at::Half|c10::Half|torch::Half|half|__half)\s*>\s*\(\)")
# torch's current stream of the calling thread: the legacy stream (the harness synchronizes the
# whole device after a call, whatever its streams).
CURRENT_STREAM = re.compile(r"\b(?:at|c10)::cuda::getCurrentCUDAStream\s*\(\s*\)")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
# torch's headers, included first, brought the standard library's integer types, exceptions and
# strings with them: the kernels before the binding use uint32_t without an include of their own.
STANDARD = """// What torch's headers brought with them (the converter's):
#include <cstdint>
#include <stdexcept>
#include <string>
"""
# What the binding's statements may use of a tensor: its pointer and its sizes.
VIEWS = """
// CUDA-L2's binding read torch tensors' pointers and sizes; these stand for them.
namespace cuda_l2_binding {
struct Tensor {
  void *pointer;
  long rows, cols;
  void *data_ptr() const { return pointer; }
  long size(int dimension) const { return dimension == 0 ? rows : cols; }
};
}  // namespace cuda_l2_binding
"""
# The entry's own names (matmul_A, ...) stay clear of the statements' (several declare A, B and C).
ENTRY = ('extern "C" void matmul(int m, int n, int k, const half *matmul_A, const half *matmul_B, half *matmul_C) {\n'
         "  void *a_ = const_cast<half *>(matmul_A), *b_ = const_cast<half *>(matmul_B);\n"
         "  cuda_l2_binding::Tensor a{a_, m, k}, b{b_, k, n}, b_col_major{b_, k, n}, c{matmul_C, m, n};\n"
         "  (void)a, (void)b, (void)b_col_major, (void)c;\n")


def body_end(text, start):
    """The index just past the brace that closes the block opened before `start`."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("the binding's body does not end")


def entry_point(source):
    """(the candidate's source, the layout its kernel reads: "nn" or "nt"), or raises ValueError
    saying why the file is left out. Every binding (one per preprocessor branch) becomes a matmul
    whose tensors a, b, b_col_major and c are views of the entry's pointers and sizes, so its
    statements, and the macros they expand, stay as published. A function template of tensors
    is launch code the binding calls, not a binding: its tensors become the same views."""
    # Typed pointers are the same pointer; torch's stream is the legacy one (the whole file).
    source = CURRENT_STREAM.sub("cudaStream_t(0)", TYPED_POINTER.sub(".data_ptr()", source))
    bindings = [binding for binding in BINDING.finditer(source)
                if not re.search(r"template\s*<[^>]*>\s*$", COMMENT.sub("", source[:binding.start() + 1]))]
    if not bindings:
        raise ValueError("no function of torch tensors")
    code = COMMENT.sub("", source)
    reads_b = re.search(r"\bb\.data_ptr\b", code) is not None
    reads_col = re.search(r"\bb_col_major\.data_ptr\b", code) is not None
    if reads_b == reads_col:
        raise ValueError("launches on both b and b_col_major" if reads_b else "launches on neither b nor b_col_major")
    out, last = [], 0
    for binding in bindings:
        names = []
        for parameter in (p.strip() for p in binding.group(2).split(",")):
            match = re.fullmatch(r"(?:const\s+)?(torch::Tensor|int|int64_t)\s*&?\s*(\w+)", parameter)
            if not match or (match.group(1) == "torch::Tensor" and match.group(2) not in ("a", "b", "b_col_major", "c")):
                raise ValueError(f"a binding parameter of another kind: {parameter}")
            if match.group(1) != "torch::Tensor" and match.group(2) not in ("M", "N", "K"):
                raise ValueError(f"a binding parameter of another kind: {parameter}")
            names.append(match.group(2))
        end = body_end(source, binding.end())
        body = TORCH_CHECK.sub("", CHECK_LINE.sub("", source[binding.end():end - 1]))
        leftover = re.search(r"\b(?:torch|at|c10)::\w+|\b(?:a|b|b_col_major|c)\.(?!data_ptr\(\)|size\(\d\))\w+",
                             COMMENT.sub("", body))
        if leftover:
            raise ValueError(f"its binding uses torch beyond the tensors' pointers and sizes ({leftover.group(0)})")
        sizes = "".join(f"  const int {name} = {name.lower()};\n" for name in names if name in ("M", "N", "K"))
        out += [source[last:binding.start() + 1], ENTRY, sizes, body.rstrip("\n ") + "\n}"]
        last = end
    out.append(source[last:])
    candidate = TORCH_INCLUDE.sub("", "".join(out))
    first = bindings[0].start() + 1
    prefix = TORCH_INCLUDE.sub("", source[:first])
    candidate = STANDARD + VIEWS + prefix + candidate[len(prefix):]
    # Launch code outside the binding that takes tensors (function templates, helpers of
    # another return type) reads them through the same views.
    candidate = re.sub(r"\btorch::Tensor\b", "cuda_l2_binding::Tensor", candidate)
    torch_left = re.search(r"\b(?:torch|at|c10)::\w+", COMMENT.sub("", candidate))
    if torch_left:
        raise ValueError(f"torch outside the binding ({torch_left.group(0)} in launch code of its own)")
    return candidate, "nt" if reads_col else "nn"


def folder_name(folder):
    """The CUDA-L2 folder a directory holds: its own name where that names a configuration
    (<gpu>_<D><A><B><C>, each F16 or F32), else the default folder's (a copy under another name)."""
    name = pathlib.Path(folder).resolve().name
    return name if CONFIG.search(name) else FOLDER


def accumulation_of(folder):
    """"f16" or "f32": the accumulator a folder's configuration names (its last type: C of D = A B + C,
    CuTe's SM80_16x8x16_F16F16F16F16 order), e.g. a100_F16F16F16F16 -> "f16", h100_F32F16F16F32 ->
    "f32"; a directory of another name is taken for the default folder (f32)."""
    return "f16" if CONFIG.search(folder_name(folder)).group(4) == "F16" else "f32"


def fetch_from(git_dir, dest=None, folders=FOLDERS):
    """kernels/<folder> of HEAD for each of `folders` (the H100 fp32-accumulation kernels and the
    A100 fp16-accumulation ones), their published speedups (eval_results/, for cuda_l2_report.py),
    COMMIT and LICENSE.txt from a clone or bare copy of
    deepreinforce-ai/CUDA-L2 into `dest`. Returns the commit."""
    git_dir, dest = pathlib.Path(git_dir), pathlib.Path(dest or DEPS)
    if (git_dir / ".git").exists():
        git_dir = git_dir / ".git"
    git = lambda *a: subprocess.run(["git", "--git-dir", str(git_dir), *a], check=True, capture_output=True).stdout
    commit = git("rev-parse", "HEAD").decode().strip()
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD",
                              *(f"kernels/{folder}" for folder in folders), "eval_results", "LICENSE.txt"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    (dest / "COMMIT").write_text(commit + "\n")
    return commit


def candidate_lines(kernels_dir, sample=0, seed=1, stage=STAGE, commit="?", accumulation=None):
    """(the JSON Lines, {file: why it was left out}) for the files of `kernels_dir` (a seeded
    random sample of `sample` of them when given), in name order. `accumulation` ("f16" or "f32"):
    which problems they are candidates for; None: what the folder's name says (accumulation_of)."""
    kernels_dir = pathlib.Path(kernels_dir)
    accumulation = accumulation or accumulation_of(kernels_dir)
    suffix = F16ACC if accumulation == "f16" else ""
    files = sorted(p for p in kernels_dir.iterdir() if NAME.match(p.name))
    if sample:
        files = sorted(random.Random(seed).sample(files, min(sample, len(files))))
    lines, left_out = [], {}
    for path in files:
        m, n, k = NAME.match(path.name).groups()
        try:
            source, layout = entry_point(path.read_text())
        except ValueError as why:
            left_out[path.name] = str(why)
            continue
        header = f"// CUDA-L2 {commit[:7]} kernels/{folder_name(kernels_dir)}/{path.name}, its torch binding replaced by matmul\n"
        lines.append({"id": f"cuda-l2-{m}x{n}x{k}-{layout}{suffix}", "problem": f"l2-{m}x{n}x{k}-{layout}{suffix}",
                      "stage": stage, "batch_id": "cuda-l2", "source": header + source})
    return lines, left_out


def compile_all(lines, work, cute_include):
    """Each candidate compiled as the harness compiles it: {id: nvcc's first error line or ""}."""
    work.mkdir(parents=True, exist_ok=True)

    def one(line):
        source = work / (line["id"] + ".cu")
        source.write_text(line["source"])
        command = [nvcc(), *HARNESS_NVCC, "-std=c++17", "-isystem", str(cute_include), "-o",
                   str(source.with_suffix(".so")), str(source)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        errors = [l for l in done.stderr.splitlines() if " error" in l or "error:" in l]
        return line["id"], "" if done.returncode == 0 else (errors[0] if errors else f"nvcc exited {done.returncode}")

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(pool.map(one, lines))


def default_cute_include():
    cache = REPO / "build" / "CMakeCache.txt"
    if cache.exists():
        found = re.search(r"^HPCREWARD_CUTE_INCLUDE_DIR:PATH=(.+)$", cache.read_text(), re.M)
        if found:
            return pathlib.Path(found.group(1))
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch-from", type=pathlib.Path, help="a clone or bare copy of deepreinforce-ai/CUDA-L2")
    parser.add_argument("--folder", default=FOLDER,
                        help=f"the kernels/ folder to convert, under .gpu-deps/cuda_l2 (default {FOLDER}; "
                             "a100_F16F16F16F16: the fp16-accumulation problems)")
    parser.add_argument("--kernels", type=pathlib.Path, help="the kernels' folder itself (default: --folder's)")
    parser.add_argument("--accumulation", choices=("f16", "f32"),
                        help="the problems' accumulation (default: what the folder's name says)")
    parser.add_argument("--out", type=pathlib.Path, help="the candidates' JSON Lines")
    parser.add_argument("--sample", type=int, default=0, help="a seeded random sample of this many files (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stage", default=STAGE)
    parser.add_argument("--compile", type=pathlib.Path, metavar="DIR", help="compile each candidate in DIR (no GPU)")
    parser.add_argument("--cute-include", type=pathlib.Path, default=default_cute_include())
    args = parser.parse_args()
    if args.fetch_from:
        commit = fetch_from(args.fetch_from)
        print(f"cuda_l2_candidates: kernels/{', kernels/'.join(FOLDERS)} of {commit} in {DEPS}")
        if not args.out:
            return 0
    if not args.out:
        parser.error("--out is required (or --fetch-from alone)")
    args.kernels = args.kernels or DEPS / "kernels" / args.folder
    if not args.kernels.is_dir():
        print(f"cuda_l2_candidates: no kernels in {args.kernels}: run with --fetch-from CLONE first", file=sys.stderr)
        return 2
    commit_file = args.kernels.parents[1] / "COMMIT"
    commit = commit_file.read_text().strip() if commit_file.exists() else "?"
    accumulation = args.accumulation or accumulation_of(args.kernels)
    lines, left_out = candidate_lines(args.kernels, args.sample, args.seed, args.stage, commit, accumulation)
    args.out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    layouts = collections.Counter(line["problem"].removesuffix(F16ACC).rsplit("-", 1)[1] for line in lines)
    print(f"cuda_l2_candidates: {len(lines)} candidates ({layouts['nt']} nt, {layouts['nn']} nn; {accumulation} "
          f"accumulation) in {args.out}; {len(left_out)} left out")
    for reason, count in collections.Counter(left_out.values()).most_common():
        print(f"  {count:4d}  left out: {reason}")
    failed = {}
    if args.compile:
        if not args.cute_include:
            parser.error("--compile needs --cute-include DIR (CuTe's headers)")
        results = compile_all(lines, args.compile, args.cute_include)
        failed = {i: e for i, e in results.items() if e}
        print(f"cuda_l2_candidates: {len(results) - len(failed)} of {len(results)} compile")
        for error, count in collections.Counter(re.sub(r"^.*?\.cu\(\d+\): ", "", e) for e in failed.values()).most_common(10):
            print(f"  {count:4d}  {error}")
    return 0 if not left_out and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
