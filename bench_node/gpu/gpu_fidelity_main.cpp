// hpcreward-gpu-fidelity: does the GPU harness measure what a plain events loop measures?
// cuBLAS D/S/HGEMM at each size, timed three ways in one process, interleaved per case:
//   cold     nvbench-style (gemm_yardsticks.hpp): L2 flushed, the stream held until the call is
//            queued, start and end events, median of 50 (the yardstick: within 5%)
//   plain    10 warm-up calls, then 50 calls back to back on one set of buffers, each between
//            two CUDA events; the median (how GEMM speeds are usually quoted)
//   harness  run_gpu_harness on cuBLAS as a candidate object (cublas_candidate.cpp) in
//            hpcreward-gpu-executor, as ranks measure a candidate: full verification, then
//            per call new inputs copied in, an L2 flush, the call, C copied out
// and prints GFLOPS and the harness's ratio to each, then columns that attribute differences:
// the harness with CUPTI's clock, the harness without its L2 flush, and cold with the GPU idle
// 2 ms between samples (the harness's duty cycle). Not a test: a report's numbers.
//   hpcreward-gpu-fidelity [--sizes 1024,4096,8192] [--json FILE]
// With --problems CATALOG [--only REGEX]: for each CUDA problem of the catalog (every kind:
// transposed, batched), cuBLAS as a candidate of that kind (cublas_kind_candidate.cpp) through
// the harness, against the cuBLAS yardstick a GPU rank measures for the problem
// (library_yardsticks.hpp, the same library call).
//   hpcreward-gpu-fidelity --problems gemm-kinds [--only REGEX] [--json FILE]
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_node/gpu/gemm_yardsticks.hpp"
#include "bench_node/gpu/cublas_reference.hpp"
#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/device_kernels.hpp"
#include "bench_node/gpu/device_memory.hpp"
#include "bench_node/gpu/exported_device_memory.hpp"
#include "bench_node/gpu/gpu_executor.hpp"
#include "bench_node/gpu/gpu_harness.hpp"
#include "bench_node/gpu/library_yardsticks.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward::gpu {
namespace {

std::string program_directory() { return std::filesystem::read_symlink("/proc/self/exe").parent_path().string(); }

// The cuBLAS candidate object for `precision`, built beside this program.
std::string candidate_object(Precision precision) {
  const char *name = precision == Precision::f64 ? "dgemm" : precision == Precision::f32 ? "sgemm" : "hgemm";
  return program_directory() + "/libhpcreward-cublas-" + name + ".so";
}

// One run of the harness as ranks run it, and what its clocks say: the calibrated overheads
// (window less events) and what a forged event could gain at most (the high overhead less the
// least overhead of the timed calls themselves).
struct HarnessRun {
  Measurement measurement;
  double least_overhead_s = 0, high_overhead_s = 0, forged_gain_s = 0;
};

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}
double median_us(const std::vector<double> &seconds) { return median(seconds) * 1e6; }

// The harness as ranks run it; `flush` off and `activity` (CUPTI's clock) on attribute differences.
HarnessRun harness_run(Cublas &cublas, Precision precision, int size, std::uint64_t l2_bytes, bool flush = true, bool activity = false) {
  const char *prefix = precision == Precision::f64 ? "cuda-dgemm-" : precision == Precision::f32 ? "cuda-sgemm-" : "cuda-hgemm-";
  const Problem *problem = find_problem(prefix + std::to_string(size));
  GpuHarnessConfig config;
  config.precision = precision;
  config.nominal = problem ? problem->nominal : Shape{size, size, size};
  if (problem) config.check_shapes = problem->check_shapes;
  config.tolerance = problem ? problem->tolerance : 2e-3;
  config.element_tolerance = problem ? problem->element_tolerance : 1e-2;
  if (problem) config.accumulation = problem->accumulation;
  config.l2_bytes = l2_bytes;
  config.flush_l2 = flush;
  GpuHarnessConfig::Trace trace;
  config.trace = &trace;
  GpuExecutor executor({.program = program_directory() + "/hpcreward-gpu-executor",
                        .object = candidate_object(precision),
                        .activity_clock = activity});
  ExportedDeviceMemory pool(operand_pool_bytes(config));
  HarnessRun run;
  if (Verdict verdict = executor.open_pool(pool.fd(), pool.bytes()); !verdict.ok()) {
    run.measurement = failed_measurement(verdict.status, verdict.reason);
    return run;
  }
  run.measurement = run_gpu_harness(executor, pool, config, cublas);
  run.least_overhead_s = trace.least_overhead_s;
  run.high_overhead_s = trace.high_overhead_s;
  std::vector<double> overheads;
  for (std::size_t i = 0; i < trace.window_s.size(); ++i) overheads.push_back(trace.window_s[i] - trace.event_s[i]);
  if (!overheads.empty())
    run.forged_gain_s = trace.high_overhead_s - *std::min_element(overheads.begin(), overheads.end());
  std::printf("  (%s %d: calibrated overhead least %.1f, high %.1f us; timed calls' median overhead %.1f us, "
              "parts: prepare %.1f, go to done %.1f (reading %.1f), finish %.1f us; CUPTI records per call %.0f)\n",
              std::string(to_string(precision)).c_str(), size, run.least_overhead_s * 1e6, run.high_overhead_s * 1e6,
              median_us(overheads), median_us(trace.prepare_s), median_us(trace.call_s), median_us(trace.event_s),
              median_us(trace.finish_s), median(trace.activity_records));
  return run;
}

// --problems: cuBLAS of each problem's kind through the harness, and the rank's yardstick.
int problem_kinds(const std::string &catalog_name, const std::string &only, const std::string &json_path,
                  std::uint64_t l2_bytes, const char *gpu_name) {
  const ProblemCatalog catalog = load_problem_catalog(catalog_name);
  Cublas cublas;
  nlohmann::json rows = nlohmann::json::array();
  std::printf("GPU: %s, catalog %s\n%-28s %-10s %-20s %10s %10s %7s %10s %s\n", gpu_name, catalog.name.c_str(),
              "problem", "layout", "shape", "harness", "yardstick", "ratio", "call ms", "status");
  for (const Problem &problem : catalog.problems) {
    if (problem.language != Language::cuda || (!only.empty() && !std::regex_search(problem.id, std::regex(only))))
      continue;
    GpuHarnessConfig config = harness_config(runner_args_for("", problem, TimingOptions{}));
    config.l2_bytes = l2_bytes;
    const std::string object = program_directory() + "/libhpcreward-cublas-kind-" +
                               std::string(to_string(problem.precision)) + "-" + to_string(problem.layout) + ".so";
    GpuExecutor executor({.program = program_directory() + "/hpcreward-gpu-executor", .object = object});
    ExportedDeviceMemory pool(operand_pool_bytes(config));
    Measurement measured;
    if (Verdict verdict = executor.open_pool(pool.fd(), pool.bytes()); !verdict.ok())
      measured = failed_measurement(verdict.status, verdict.reason);
    else
      measured = run_gpu_harness(executor, pool, config, cublas);
    const LibraryYardsticks yardsticks =
        measure_library_yardsticks(problem.precision, problem.layout, problem.nominal, l2_bytes);
    const double ratio = yardsticks.cublas.gflops > 0 ? measured.gflops / yardsticks.cublas.gflops : 0;
    std::printf("%-28s %-10s %-20s %10.0f %10.0f %7.3f %10.3f %s%s\n", problem.id.c_str(),
                to_string(problem.layout).c_str(), to_string(problem.nominal).c_str(), measured.gflops,
                yardsticks.cublas.gflops, ratio, measured.median_s * 1e3, std::string(to_string(measured.status)).c_str(),
                measured.reason.empty() ? "" : (": " + measured.reason).c_str());
    rows.push_back({{"problem", problem.id}, {"layout", to_string(problem.layout)},
                    {"shape", to_string(problem.nominal)}, {"harness_gflops", measured.gflops},
                    {"cublas_yardstick_gflops", yardsticks.cublas.gflops}, {"cublaslt_yardstick_gflops", yardsticks.cublaslt.gflops},
                    {"ratio", ratio}, {"median_s", measured.median_s}, {"status", to_string(measured.status)},
                    {"reason", measured.reason}, {"reps", measured.reps}, {"cv", measured.cv}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << nlohmann::json{{"gpu", gpu_name}, {"rows", rows}}.dump(1);
  return 0;
}

std::vector<int> parse_sizes(const char *text) {
  std::vector<int> sizes;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) sizes.push_back(std::stoi(item));
  return sizes;
}

}  // namespace
}  // namespace hpcreward::gpu

int main(int argc, char **argv) {
  using namespace hpcreward;
  using namespace hpcreward::gpu;
  std::vector<int> sizes = {1024, 4096, 8192};
  std::string json_path, problems, only;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--sizes") == 0) sizes = parse_sizes(argv[i + 1]);
    if (std::strcmp(argv[i], "--json") == 0) json_path = argv[i + 1];
    if (std::strcmp(argv[i], "--problems") == 0) problems = argv[i + 1];
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  try {
    cuda_call(cudaSetDevice(0), "cudaSetDevice");
    cudaDeviceProp properties{};
    cuda_call(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
    if (!problems.empty())
      return problem_kinds(problems, only, json_path, static_cast<std::uint64_t>(properties.l2CacheSize),
                           properties.name);
    Cublas cublas;
    nlohmann::json rows = nlohmann::json::array();
    std::printf("GPU: %s\n%-6s %6s %9s %9s %9s %7s %7s %5s %6s %9s %11s %11s %11s\n", properties.name, "gemm", "size",
                "cold", "plain", "harness", "/cold", "/plain", "reps", "cv", "gain us", "CUPTI clock", "no L2 flush",
                "cold, idle");
    for (Precision precision : {Precision::f64, Precision::f32, Precision::f16})
      for (int size : sizes) {
        const auto l2 = static_cast<std::uint64_t>(properties.l2CacheSize);
        const double cold = cold_gemm_gflops(cublas, precision, size, 2 * l2);
        // Cold again with the GPU idle between samples for about as long as a timed call's
        // checks take (the harness's duty cycle): what of the difference is the GPU's power state.
        const double cold_idle = cold_gemm_gflops(cublas, precision, size, 2 * l2, 2e-3);
        const double plain = plain_gemm_gflops(cublas, precision, size);
        const HarnessRun run = harness_run(cublas, precision, size, l2);
        const Measurement &measured = run.measurement;
        const Measurement activity = harness_run(cublas, precision, size, l2, true, true).measurement;
        const Measurement no_flush = harness_run(cublas, precision, size, l2, false).measurement;
        const char *name = precision == Precision::f64 ? "dgemm" : precision == Precision::f32 ? "sgemm" : "hgemm";
        const auto ratio = [&](double base) { return base > 0 ? measured.gflops / base : 0.0; };
        std::printf("%-6s %6d %9.0f %9.0f %9.0f %7.3f %7.3f %5d %6.3f %9.1f %11.0f %11.0f %11.0f %s%s\n", name, size, cold, plain,
                    measured.gflops, ratio(cold), ratio(plain), measured.reps, measured.cv, run.forged_gain_s * 1e6,
                    activity.gflops, no_flush.gflops, cold_idle, std::string(to_string(measured.status)).c_str(),
                    measured.reason.empty() ? "" : (": " + measured.reason).c_str());
        rows.push_back({{"gemm", name}, {"size", size}, {"cold_gflops", cold}, {"cold_idle_gflops", cold_idle}, {"plain_gflops", plain}, {"harness_gflops", measured.gflops},
                        {"cupti_clock_gflops", activity.gflops}, {"no_flush_gflops", no_flush.gflops}, {"least_overhead_s", run.least_overhead_s}, {"high_overhead_s", run.high_overhead_s}, {"forged_event_gain_s", run.forged_gain_s},
                        {"status", to_string(measured.status)}, {"reps", measured.reps}, {"cv", measured.cv},
                        {"verify_s", measured.verify_s}, {"time_s", measured.time_s}});
      }
    if (!json_path.empty()) std::ofstream(json_path) << nlohmann::json{{"gpu", properties.name}, {"rows", rows}}.dump(1);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "hpcreward-gpu-fidelity: %s\n", error.what());
    return 1;
  }
  return 0;
}
