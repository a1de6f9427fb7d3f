"""published_sgemm.py's candidates from small .cuh files written here (not siboehm's, which CI lacks),
its reading of the probe's table and its arithmetic on hand-written rows (no GPU, no nvcc needed)."""
import json
import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import published_sgemm  # noqa: E402
from published_sgemm import (KERNELS, as_candidate_kernel, candidate_id, candidate_lines, parse_probe,  # noqa: E402
                             summarize)

# The shape of the published files: the cuBLAS header, a kernel template, and an epilogue that
# loads C into tmp and adds beta * tmp.x ... tmp.w.
FAKE = """#pragma once

#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void NAME(int M, int N, int K, float alpha, float *A,
                     float *B, float beta, float *C) {
  float threadResults[4] = {A[0], A[1], B[0], B[1]};
  for (uint resIdxN = 0; resIdxN < 4; resIdxN += 4) {
      // load C vector into registers
      float4 tmp = reinterpret_cast<float4 *>(
          &C[threadIdx.x * N + resIdxN])[0];
      tmp.x = alpha * threadResults[resIdxN] + beta * tmp.x;
      tmp.y = alpha * threadResults[resIdxN + 1] + beta * tmp.y;
      tmp.z = alpha * threadResults[resIdxN + 2] + beta * tmp.z;
      tmp.w = alpha * threadResults[resIdxN + 3] + beta * tmp.w;
      reinterpret_cast<float4 *>(&C[threadIdx.x * N + resIdxN])[0] = tmp;
  }
}
"""

PROBE_OUTPUT = """4096^3, TFLOPS (SM MHz right after)
round kernel   runner          b2b             gap             cold
    0      6    31.10 (1980)    31.20 (1980)    31.40 (1974)    31.30 (1977)
    0      7    31.00 (1980)    31.10 (1980)    31.20 (1980)    31.20 (1980)
    0      8    23.20 (1980)    23.20 (1980)    23.20 (1980)    23.20 (1980)
    1      6    31.30 (1980)    31.20 (1980)    31.40 (1974)    31.30 (1977)
    1      7    31.20 (1980)    31.10 (1980)    31.20 (1980)    31.20 (1980)
    1      8    23.10 (1980)    23.20 (1980)    23.20 (1980)    23.20 (1980)
    2      6    31.20 (1980)    31.20 (1980)    31.40 (1974)    31.30 (1977)
    2      7    31.10 (1980)    31.10 (1980)    31.20 (1980)    31.20 (1980)
    2      8    23.30 (1980)    23.20 (1980)    23.20 (1980)    23.20 (1980)
"""


def fake_kernels(directory):
    for file, template in KERNELS.values():
        (directory / file).write_text(FAKE.replace("NAME", template))
    return directory


def test_the_kernel_keeps_its_code_but_the_cublas_header_and_betas_read_of_c():
    got = as_candidate_kernel(FAKE)
    assert "cublas" not in got and "beta * tmp" not in got
    assert re.search(r"float4 tmp;", got) and "&C[threadIdx.x * N + resIdxN])[0];" not in got
    assert "tmp.x = alpha * threadResults[resIdxN];" in got
    # Everything else as published, line for line.
    dropped = {"#include <cublas_v2.h>"}
    kept = [line for line in FAKE.splitlines() if line not in dropped and "tmp" not in line and "&C[threadIdx.x" not in line]
    assert [line for line in got.splitlines() if "tmp" not in line] == kept


def test_a_file_whose_epilogue_is_not_the_published_one_is_refused():
    with pytest.raises(ValueError, match="one load of C and four beta terms"):
        as_candidate_kernel(FAKE.replace("      tmp.w = alpha * threadResults[resIdxN + 3] + beta * tmp.w;\n", ""))
    with pytest.raises(ValueError, match="found 0 and 0"):
        as_candidate_kernel("#include <cuda_runtime.h>\n__global__ void k() {}\n")


def test_every_kernel_twice_each_copy_a_source_of_its_own_with_one_extern_c_matmul(tmp_path):
    lines = candidate_lines(fake_kernels(tmp_path), commit="abc123")
    assert [line["id"] for line in lines] == [candidate_id(k, c) for c in range(2) for k in (6, 7, 8)]
    assert {(line["problem"], line["stage"]) for line in lines} == {("cuda-sgemm-4096", "cuda-smem")}
    assert len({line["source"] for line in lines}) == len(lines)  # the repeat cache would score a twin once
    for line in lines:
        json.dumps(line)
        source, template = line["source"], KERNELS[int(line["id"].split("_")[2].split("#")[0])][1]
        assert len(re.findall(r'extern "C" void matmul\(int m, int n, int k, const float \*A, const float \*B, float \*C\)',
                              source)) == 1
        assert re.search(rf"{template}<BM, BN, BK, TM, TN><<<", source)  # the kernel where its tiles fit
        assert "naive_fallback<<<" in source  # and the naive one for the checks' odd shapes
        assert "abc123" in source.splitlines()[0] and "cublas" not in source.split("\n", 2)[2]


def test_the_probes_table_is_read_way_by_way():
    probe = parse_probe(PROBE_OUTPUT)
    assert probe["size"] == 4096 and probe["ways"] == ["runner", "b2b", "gap", "cold"]
    assert len(probe["rows"]) == 9
    assert probe["rows"][0] == {"round": 0, "kernel": 6, "tflops": {"runner": 31.1, "b2b": 31.2, "gap": 31.4, "cold": 31.3},
                                "mhz": {"runner": 1980.0, "b2b": 1980.0, "gap": 1974.0, "cold": 1977.0}}
    with pytest.raises(ValueError):
        parse_probe("probe: out of memory\n")
    with pytest.raises(ValueError, match="3 figures for 4 ways"):
        parse_probe(PROBE_OUTPUT + "    3      6    31.10 (1980)    31.20 (1980)    31.40 (1974)\n")


def row(cid, status, gflops, reason=""):
    return {"candidate_id": cid, "status": status, "gflops": gflops, "reason": reason, "techniques": "smem"}


def test_harness_over_runner_is_the_copies_mean_over_the_rounds_median():
    probe = parse_probe(PROBE_OUTPUT)
    rows = [row(candidate_id(6, 0), "ok", 30600.0), row(candidate_id(6, 1), "ok", 30800.0),
            row(candidate_id(7, 0), "ok", 32000.0), row(candidate_id(7, 1), "wrong_answer", 0.0, "C differs"),
            row(candidate_id(8, 0), "ok", 22000.0)]
    six, seven, eight = summarize(rows, probe)
    assert six["runner_tflops"] == pytest.approx(31.2) and six["harness_tflops"] == [30.6, 30.8]
    assert six["ratio"] == pytest.approx(30.7 / 31.2) and six["within_tolerance"]
    assert six["probe_tflops"]["gap"] == pytest.approx(31.4)
    # A copy that is not ok has no figure and no part in the mean; its reason is kept.
    assert seven["statuses"] == ["ok", "wrong_answer"] and seven["harness_tflops"] == [32.0, None]
    assert seven["ratio"] == pytest.approx(32.0 / 31.1) and seven["reasons"][1] == "C differs"
    assert seven["within_tolerance"]  # 1.029
    assert eight["statuses"] == ["ok", "(no row)"] and eight["ratio"] == pytest.approx(22.0 / 23.2)
    assert eight["within_tolerance"] is False  # 0.948


def test_without_the_probe_there_is_no_ratio():
    (six, *_) = summarize([row(candidate_id(6, 0), "ok", 30600.0)], None)
    assert six["runner_tflops"] is None and six["ratio"] is None and six["within_tolerance"] is None


def test_the_run_without_the_kernels_says_how_to_make_them(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(published_sgemm, "KERNELS_DIR", tmp_path / "absent")
    monkeypatch.setattr(sys, "argv", ["published_sgemm.py", "--out", str(tmp_path / "out")])
    assert published_sgemm.main() == 2
    assert "--fetch-from" in capsys.readouterr().err


def test_a_run_with_the_pipeline_and_the_probe_faked_writes_the_table_and_fails_on_a_copy_not_ok(tmp_path, monkeypatch,
                                                                                                    capsys):
    monkeypatch.setattr(published_sgemm, "KERNELS_DIR", fake_kernels(tmp_path))
    monkeypatch.setattr(published_sgemm, "DEPS", tmp_path)
    (tmp_path / "COMMIT").write_text("abc123\n")
    statuses = {}

    def pipeline(out, candidates, np_, gpu_args, gpus=1):
        assert (np_, gpus) == (0, 1)
        out.mkdir()
        (out / "rewards.h5").write_text("")
        lines = [json.loads(line) for line in candidates.read_text().splitlines()]
        statuses["rows"] = [row(line["id"], "ok", 31000.0) for line in lines]
        return 0, 1.0

    def probe(binary):
        binary.write_text("#!/bin/sh\ncat <<'END'\n" + PROBE_OUTPUT + "END\n")
        binary.chmod(0o755)
        return ["nvcc", "-o", str(binary)], published_sgemm.subprocess.CompletedProcess([], 0, "", "")

    monkeypatch.setattr(published_sgemm, "run_pipeline", pipeline)
    monkeypatch.setattr(published_sgemm, "read_rows", lambda log: statuses["rows"])
    monkeypatch.setattr(published_sgemm, "compile_probe", probe)
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["published_sgemm.py", "--out", str(out), "--rounds", "3"])
    assert published_sgemm.main() == 0
    report = json.loads((out / "report.json").read_text())
    assert report["sgemm_cuda_commit"] == "abc123" and report["failures"] == 0
    assert [k["kernel"] for k in report["kernels"]] == [6, 7, 8]
    assert report["kernels"][0]["ratio"] == pytest.approx(31.0 / 31.2)
    assert "within 3%" in capsys.readouterr().out

    # The same with one copy refused: exit 1, and its reason printed.
    def refused(out_, candidates, np_, gpu_args, gpus=1):
        rc = pipeline(out_, candidates, np_, gpu_args, gpus)
        statuses["rows"][4] = row(statuses["rows"][4]["candidate_id"], "forbidden", 0.0, "the object needs libcublas")
        return rc

    monkeypatch.setattr(published_sgemm, "run_pipeline", refused)
    assert published_sgemm.main() == 1
    assert "forbidden: the object needs libcublas" in capsys.readouterr().out
