// Rank 0's per-candidate message and digest costs in the binary encoding (docs/reports/dispatch.md,
// third round; its JSON figures were taken with this program at 6c506c9, before the JSON task
// and result encoders left the product). Prints one JSON object of microseconds per operation,
// with the message sizes. A dgemm-256 task with a 350-byte source and a null-measurement-sized
// result; every operation repeated, best of 3 rounds. Build and run (a configured, built tree):
//   c++ -O2 -DNDEBUG -std=c++20 -I. tests/perf/codec_micro.cpp build/common/libhpcreward_common.a \
//       -lcrypto -o /tmp/codec_micro && nice /tmp/codec_micro
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "common/messages_binary.hpp"
#include "common/problem_catalog.hpp"
#include "common/sha256.hpp"

namespace {

std::size_t sink = 0;  // keeps the work from being optimized away

template <typename Operation>
double best_us(Operation operation, int calls) {
  double best = 1e300;
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) operation(i);
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / calls);
  }
  return best;
}

}  // namespace

int main() {
  using namespace hpcreward;
  BenchTask task;
  task.candidate_id = "c12345";
  task.problem = *find_problem("dgemm-256");
  task.stage = "avx512";
  task.compiler_flags = {"-O3", "-mavx512f"};
  task.techniques_allowed = {"openmp", "avx512"};
  task.techniques_required = {"avx512"};
  task.source = std::string(350, 'a');
  BenchResult result;
  result.measurement.reason = std::string(180, 'r');  // a null measurement's reason is about this long
  result.host = "node017";
  result.device = "cpu";
  const std::string task_binary = encode_task(task), result_binary = encode_result(result);
  std::string source = task.source;

  const double binary_task_encode = best_us([&](int i) { task.sequence = i; sink += encode_task(task).size(); }, 200000);
  const double binary_result_decode = best_us([&](int) { sink += decode_result(result_binary).host.size(); }, 200000);
  const double sha256 = best_us([&](int i) { source[0] = static_cast<char>(i); sink += sha256_hex(source)[0]; }, 200000);

  std::printf("{\n  \"task_bytes_binary\": %zu, \"result_bytes_binary\": %zu,\n", task_binary.size(),
              result_binary.size());
  std::printf("  \"binary_task_encode_us\": %.3f, \"binary_result_decode_us\": %.3f,\n", binary_task_encode,
              binary_result_decode);
  std::printf("  \"sha256_hex_350_bytes_us\": %.3f,\n  \"sink\": %zu\n}\n", sha256, sink % 10);
  return 0;
}
