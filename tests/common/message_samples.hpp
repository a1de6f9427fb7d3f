#pragma once
// A task and a result with every field set to something other than its default, for the
// binary message tests.
#include <string>

#include "common/messages.hpp"

namespace hpcreward::test {

inline BenchTask full_task() {
  BenchTask task;
  task.sequence = 1234567890123LL;
  task.candidate_id = "grpo-step-17/sample-3";
  task.problem.id = "sgemm-odd";
  task.problem.precision = Precision::f32;
  task.problem.language = Language::cuda;
  task.problem.layout = {.transpose_b = true, .batched = true};
  task.problem.nominal = {1024, 512, 256, 12};
  task.problem.check_shapes = {{257, 255, 263, 3}, {1, 1, 1}, {33, 17, 9, 2}};
  task.problem.tolerance = 1.25e-5;
  task.problem.element_tolerance = 3e-3;
  task.stage = "avx512";
  task.compiler_flags = {"-O3", "-mavx512f", "-fopenmp"};
  task.techniques_allowed = {"openmp", "avx512"};
  task.techniques_required = {"avx512"};
  task.libraries = {"cute"};
  task.source = "void matmul(int m, int n, int k, const float *A, const float *B, float *C) { /* \"quoted\" \\ */ }\n";
  task.seed = 0xfedcba9876543210ULL;
  return task;
}

inline BenchResult full_result() {
  BenchResult result;
  result.sequence = -42;
  result.rank = 15;
  result.host = "node017.cluster";
  result.device = "cuda:0 NVIDIA H100 80GB HBM3";
  Measurement &m = result.measurement;
  m.status = Status::ok;
  m.reason = "measured; note: caf\xc3\xa9 \xe2\x9c\x93";  // UTF-8 passes through untouched
  m.gflops = 1234.5;
  m.median_s = 2.5e-3;
  m.min_s = 2.4e-3;
  m.iqr_s = 1e-5;
  m.cv = 0.0125;
  m.reps = 41;
  m.max_error = 7.5e-15;
  m.compile_s = 0.8;
  m.verify_s = 0.05;
  m.time_s = 1.2;
  m.techniques.detected = true;
  m.techniques.techniques = {"openmp", "avx512", "blocking"};
  m.techniques.loop_order = "ikj";
  m.techniques.tile_sizes = {64, 32, -1};
  m.techniques.evidence = "line 3: #pragma omp parallel for; vfmadd231pd in matmul";
  m.yardsticks = {.openblas = 41.5, .cublas = 0, .cublaslt = 1.0 / 3};
  return result;
}

}  // namespace hpcreward::test
