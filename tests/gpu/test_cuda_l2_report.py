"""cuda_l2_report.py on rows and a published table the test writes (no GPU, no CUDA-L2 clone)."""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cuda_l2_report  # noqa: E402

HEADER = ("mnk,torch.matmul,cuBLAS-tn,cuBLAS-nn,cuBLAS-max,cuBLASLt-heuristic-tn,cuBLASLt-heuristic-nn,"
          "cuBLASLt-heuristic-max,cuBLASLt-auto-tuning-tn,cuBLASLt-auto-tuning-nn,cuBLASLt-auto-tuning-max\n")


def row(problem, status="ok", gflops=0.0, blas=1.0, lt=1.0, techniques="smem+tensor+async", reason=""):
    return {"problem": problem, "status": status, "gflops": gflops, "cublas_gflops": blas, "cublaslt_gflops": lt,
            "techniques": techniques, "reason": reason}


def published(tmp_path):
    (tmp_path / cuda_l2_report.PUBLISHED["f32"]).write_text(
        HEADER + "4096_4096_4096,1,1,1,1.25,1,1,1,1,1,1.10\n64_64_64,1,1,1,1.50,1,1,1,1,1,1.40\n")
    return tmp_path


def test_verdicts_speedups_and_the_published_ones_side_by_side(tmp_path):
    rows = [row("l2-4096x4096x4096-nt", gflops=600e3, blas=750e3, lt=800e3, techniques="smem+tensor+async+wgmma+tma"),
            row("l2-64x64x64-nn", gflops=1e3, blas=2e3, lt=4e3),
            row("l2-128x128x128-nt", "wrong_answer", reason="3 elements of C differ by more than 0.01 x (|A||B|)_ij"),
            row("l2-128x128x128-nt-f16acc", gflops=5e3, blas=10e3, lt=10e3),
            row("cuda-sgemm-4096", gflops=1.0)]  # not of the catalog: left out
    text = cuda_l2_report.report(rows, published(tmp_path))
    lines = text.splitlines()
    assert "### h100_F32F16F16F32 (f32 accumulation): 3 rows" in lines
    assert "| `ok` | 2 | 1 |" in lines and "| `wrong_answer` | 1 | 0 |" in lines
    # a reason's | would end its cell
    assert "| `l2-128x128x128-nt` | `wrong_answer` | 3 elements of C differ by more than 0.01 x (\\|A\\|\\|B\\|)_ij |" in lines
    assert ("| `l2-4096x4096x4096-nt` | smem+tensor+async+**wgmma+tma** | 600.0 | 750.0 | 800.0 | 0.80 | 0.75 "
            "| 1.25 | 1.10 |") in lines
    assert "| `l2-64x64x64-nn` | smem+tensor+async | 1.0 | 2.0 | 4.0 | 0.50 | 0.25 | 1.50 | 1.40 |" in lines
    assert any(l.startswith("Over the 2 `ok` kernels: through the harness 0.50 to 0.80 (median 0.65) of cuBLAS")
               for l in lines)
    assert "At the 1 above 100 TFLOPS: harness 0.80 to 0.80 (median 0.80) of cuBLAS" in text
    # the fp16-accumulation folder on its own, its published table absent: said, not invented
    assert "### a100_F16F16F16F16 (f16 accumulation): 1 rows" in lines
    assert "| `l2-128x128x128-nt-f16acc` | smem+tensor+async | 5.0 | 10.0 | 10.0 | 0.50 | 0.50 | - | - |" in lines
    assert f"(no {tmp_path / cuda_l2_report.PUBLISHED['f16']}: published columns empty)" in text
    assert "cuda-sgemm-4096" not in text


def test_rows_of_no_catalog_problem_say_so(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row("cuda-hgemm-4096", gflops=1.0)) + "\n")
    done = subprocess.run([sys.executable, str(HERE / "cuda_l2_report.py"), str(rows), "--eval-results", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert "no row of" in done.stderr and "is of a cuda-l2 problem" in done.stderr
