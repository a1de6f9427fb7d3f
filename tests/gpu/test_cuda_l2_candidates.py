"""cuda_l2_candidates.py's conversion on files written here in CUDA-L2's shapes (CI has no
.gpu-deps): a binding becomes the entry point over views of its tensors, the layout it reads
picks the problem, what it cannot convert is left out with the reason (no GPU, no nvcc)."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cuda_l2_candidates import accumulation_of, candidate_lines, entry_point, fetch_from  # noqa: E402

KERNEL = """#include <cuda.h>
#include <cute/tensor.hpp>
template <typename T>
__global__ void gemm_kernel(T *a, T *b, T *c, int M, int N, int K) { /* the published kernel */ }
template <typename T>
void launch(T *a, T *b, T *c, int M, int N, int K, int swizzle) {
  gemm_kernel<T><<<1, 1>>>(a, b, c, M, N, K);
}
"""
CHECKS = """#include <torch/extension.h>
#include <torch/types.h>
#define CHECK_TORCH_TENSOR_DTYPE(T, th_type) if (((T).options().dtype() != (th_type))) { throw 1; }
"""


def binding(statements, parameters="torch::Tensor a, torch::Tensor b, torch::Tensor b_col_major, torch::Tensor c"):
    return f"\nvoid cuda_l2_h100_fp32({parameters}) {{\n{statements}\n}}\n"


COL_MAJOR = """  CHECK_TORCH_TENSOR_DTYPE(a, torch::kHalf)
  TORCH_CHECK(b.dtype() == torch::kHalf,
              "b must be FP16");
  const int M = a.size(0);
  const int K = a.size(1);
  const int N = b.size(1);
  launch<half>(reinterpret_cast<half *>(a.data_ptr()), reinterpret_cast<half *>(b_col_major.data_ptr()),
               reinterpret_cast<half *>(c.data_ptr()), M, N, K, 2048);"""


def test_a_binding_on_b_col_major_becomes_the_entry_point_of_the_nt_problem():
    source, layout = entry_point(KERNEL + CHECKS + binding(COL_MAJOR))
    assert layout == "nt"
    assert "torch/" not in source and "CHECK_TORCH_TENSOR_DTYPE(a" not in source and "TORCH_CHECK" not in source
    assert ('extern "C" void matmul(int m, int n, int k, const half *matmul_A, const half *matmul_B, half *matmul_C) {'
            in source)
    assert "b_col_major{b_, k, n}" in source and "c{matmul_C, m, n}" in source
    assert KERNEL.split("\n", 1)[1] in source, "the published kernel is unchanged"
    assert "reinterpret_cast<half *>(b_col_major.data_ptr())" in source, "the statements stay as published"
    assert source.index("namespace cuda_l2_binding") < source.index('extern "C"')


def test_a_macro_that_launches_on_b_and_typed_pointers_and_torchs_stream_are_read_too():
    macro = ("#define LAUNCH(stages) launch<half>(reinterpret_cast<half *>(a.data_ptr<at::Half>()), "
             "reinterpret_cast<half *>(b.data_ptr()), reinterpret_cast<half *>(c.data_ptr()), M, N, K, stages)\n")
    statements = ("  const int M = a.size(0), K = a.size(1), N = b.size(1);\n"
                  "  cudaStream_t stream = at::cuda::getCurrentCUDAStream();\n  LAUNCH(4);")
    source, layout = entry_point(KERNEL + macro + CHECKS + binding(statements))
    assert layout == "nn"
    assert "cudaStream_t stream = cudaStream_t(0);" in source
    assert macro.replace("data_ptr<at::Half>()", "data_ptr()") in source, "the macro stays, its typed pointer the same pointer"


def test_the_bindings_of_each_preprocessor_branch_become_entry_points_and_m_n_k_parameters_are_read():
    text = (KERNEL + CHECKS + "#if defined(SM90)\n" + binding(COL_MAJOR) + "#else\n"
            + binding('  throw std::runtime_error("SM90 only");') + "#endif\n")
    source, layout = entry_point(text)
    assert source.count('extern "C" void matmul') == 2 and layout == "nt"
    with_sizes = binding("  launch<half>((half *)a.data_ptr(), (half *)b_col_major.data_ptr(), (half *)c.data_ptr(), M, N, K, 1);",
                         "torch::Tensor a, torch::Tensor b_col_major, torch::Tensor c, int M, int N, int K")
    source, _ = entry_point(KERNEL + CHECKS + with_sizes)
    assert "  const int M = m;\n  const int N = n;\n  const int K = k;\n" in source


@pytest.mark.parametrize("statements, why", [
    ("  auto w = torch::empty({2, 3}, a.options());\n  launch<half>((half *)a.data_ptr(), (half *)b.data_ptr(), "
     "(half *)c.data_ptr(), 1, 1, 1, 1);", "beyond the tensors' pointers and sizes (torch::empty)"),
    ("  launch<half>((half *)a.data_ptr(), (half *)b.data_ptr(), (half *)c.data_ptr(), 1, 1, 1, 1);\n"
     "  launch<half>((half *)a.data_ptr(), (half *)b_col_major.data_ptr(), (half *)c.data_ptr(), 1, 1, 1, 1);",
     "launches on both b and b_col_major"),
    ("  int64_t n = c.numel();\n  launch<half>((half *)a.data_ptr(), (half *)b.data_ptr(), (half *)c.data_ptr(), 1, 1, 1, 1);",
     "(c.numel)"),
])
def test_what_it_cannot_convert_is_left_out_with_the_reason(statements, why):
    with pytest.raises(ValueError, match=__import__("re").escape(why)):
        entry_point(KERNEL + CHECKS + binding(statements))


def test_files_become_lines_of_the_catalogs_problems_and_a_sample_is_seeded(tmp_path):
    for m, n, k in [(64, 128, 256), (1024, 1024, 1024), (16384, 64, 8192), (128, 128, 128)]:
        (tmp_path / f"{m}_{n}_{k}.cu").write_text(KERNEL + CHECKS + binding(COL_MAJOR))
    (tmp_path / "99_99_99.cu").write_text(KERNEL)  # no binding
    (tmp_path / "README.md").write_text("not a kernel")
    lines, left_out = candidate_lines(tmp_path, commit="dbe017722194")
    assert [line["problem"] for line in lines] == ["l2-1024x1024x1024-nt", "l2-128x128x128-nt", "l2-16384x64x8192-nt",
                                                    "l2-64x128x256-nt"]
    assert {line["stage"] for line in lines} == {"cuda-cute"}
    assert lines[0]["source"].startswith("// CUDA-L2 dbe0177 kernels/h100_F32F16F16F32/1024_1024_1024.cu")
    assert left_out == {"99_99_99.cu": "no function of torch tensors"}
    first, first_left_out = candidate_lines(tmp_path, sample=2, seed=5)
    again, _ = candidate_lines(tmp_path, sample=2, seed=5)
    assert first == again and len(first) + len(first_left_out) == 2


def test_launch_code_of_tensors_outside_the_binding_reads_the_same_views():
    launchers = ("template <typename Config>\nvoid run(torch::Tensor a, torch::Tensor &b_col_major, torch::Tensor c) {\n"
                 "  launch<half>((half *)a.data_ptr(), (half *)b_col_major.data_ptr<at::Half>(), (half *)c.data_ptr(), 1, 1, 1, 0);\n}\n"
                 "template <typename Gemm>\nbool try_run(torch::Tensor a, torch::Tensor b_col_major, torch::Tensor c) {\n"
                 "  return true;\n}\n")
    source, layout = entry_point(KERNEL + launchers + CHECKS + binding("  run<int>(a, b_col_major, c);"))
    assert layout == "nt"
    assert "void run(cuda_l2_binding::Tensor a, cuda_l2_binding::Tensor &b_col_major, cuda_l2_binding::Tensor c)" in source
    assert "bool try_run(cuda_l2_binding::Tensor a" in source and "torch::" not in source and "at::" not in source
    assert source.count('extern "C" void matmul') == 1, "a template is no entry point"
    assert source.index("namespace cuda_l2_binding") < source.index("void run(")


CATALOG = pathlib.Path(__file__).resolve().parents[2] / "common" / "problems" / "cuda-l2.json"


@pytest.mark.parametrize("folder, accumulation", [("a100_F16F16F16F16", "f16"), ("h100_F32F16F16F32", "f32"),
                                                  ("a100_F32F16F16F32", "f32"), ("3090_F32F16F16F32", "f32"),
                                                  ("a copy", "f32")])
def test_the_folders_name_says_the_accumulation(tmp_path, folder, accumulation):
    (tmp_path / folder).mkdir()
    assert accumulation_of(tmp_path / folder) == accumulation


def test_an_fp16_accumulation_folder_becomes_lines_of_the_f16acc_problems(tmp_path):
    import json
    folder = tmp_path / "a100_F16F16F16F16"
    folder.mkdir()
    for m, n, k in [(64, 64, 64), (1024, 1024, 16384)]:
        (folder / f"{m}_{n}_{k}.cu").write_text(KERNEL + CHECKS + binding(COL_MAJOR))
    (folder / "128_128_128.cu").write_text(KERNEL + CHECKS + binding(COL_MAJOR.replace("b_col_major.data_ptr", "b.data_ptr")))
    lines, left_out = candidate_lines(folder, commit="dbe017722194")
    assert not left_out
    assert [line["problem"] for line in lines] == ["l2-1024x1024x16384-nt-f16acc", "l2-128x128x128-nn-f16acc",
                                                    "l2-64x64x64-nt-f16acc"]
    assert [line["id"] for line in lines][0] == "cuda-l2-1024x1024x16384-nt-f16acc"
    assert lines[0]["source"].startswith("// CUDA-L2 dbe0177 kernels/a100_F16F16F16F16/1024_1024_16384.cu")
    problems = {p["id"]: p for p in json.loads(CATALOG.read_text())["problems"]}
    for line in lines:
        assert problems[line["problem"]].get("accumulation") == "f16", line["problem"]
    # The same files as the default folder's, or told otherwise.
    assert candidate_lines(folder, accumulation="f32")[0][0]["problem"] == "l2-1024x1024x16384-nt"
    plain = tmp_path / "copy"
    plain.mkdir()
    (plain / "64_64_64.cu").write_text(KERNEL + CHECKS + binding(COL_MAJOR))
    assert candidate_lines(plain)[0][0]["problem"] == "l2-64x64x64-nt"
    assert candidate_lines(plain, accumulation="f16")[0][0]["problem"] == "l2-64x64x64-nt-f16acc"


def test_fetch_from_copies_both_folders_and_the_command_line_names_the_accumulation(tmp_path):
    import subprocess
    clone = tmp_path / "clone"
    for folder in ("h100_F32F16F16F32", "a100_F16F16F16F16", "3090_F32F16F16F32"):
        (clone / "kernels" / folder).mkdir(parents=True)
        (clone / "kernels" / folder / "64_64_64.cu").write_text(KERNEL + CHECKS + binding(COL_MAJOR))
    (clone / "LICENSE.txt").write_text("license")
    (clone / "eval_results").mkdir()
    (clone / "eval_results" / "cuda_l2_h100_F32F16F16F32_speedup_offline.csv").write_text("mnk,cuBLAS-max\n")
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "kernels"], check=True)
    deps = tmp_path / "deps"
    commit = fetch_from(clone, deps)
    assert (deps / "COMMIT").read_text().strip() == commit
    assert sorted(p.name for p in (deps / "kernels").iterdir()) == ["a100_F16F16F16F16", "h100_F32F16F16F32"]
    assert (deps / "eval_results" / "cuda_l2_h100_F32F16F16F32_speedup_offline.csv").exists()  # for cuda_l2_report.py
    out = tmp_path / "l2.jsonl"
    script = pathlib.Path(__file__).resolve().parent / "cuda_l2_candidates.py"
    done = subprocess.run([sys.executable, str(script), "--kernels", str(deps / "kernels" / "a100_F16F16F16F16"),
                           "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "1 candidates (1 nt, 0 nn; f16 accumulation)" in done.stdout
    assert '"problem": "l2-64x64x64-nt-f16acc"' in out.read_text()
    assert commit[:7] in out.read_text()


def test_the_standard_headers_torch_brought_come_before_the_published_kernels():
    kernel = "__device__ uint32_t smem_u32addr(const void *p) { return 0; }\n" + KERNEL
    source, _ = entry_point(kernel + CHECKS + binding(COL_MAJOR))
    assert source.index("#include <cstdint>") < source.index("uint32_t smem_u32addr")


def test_torch_beyond_tensors_outside_the_binding_is_left_out_with_the_reason():
    launcher = ("template <typename Gemm>\nint try_run(torch::Tensor a) {\n"
                "  return a.dtype() == torch::kHalf;\n}\n")
    with pytest.raises(ValueError, match=r"torch outside the binding \(torch::kHalf"):
        entry_point(KERNEL + launcher + CHECKS + binding(COL_MAJOR))
