#include "bench_node/rank/measured_core_sharing.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

namespace hpcreward {
namespace {

constexpr long kLoopIterations = 1L << 21;  // about 10 ms of the loop on a 3 GHz core

bool pin_this_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

// Sixteen independent scalar multiply chains (kept scalar: vectorized, they would be four chains
// bound by latency): more multiplies than the core's ports retire per multiply's latency, so
// the loop is bound by the ports an SMT sibling shares.
__attribute__((optimize("no-tree-vectorize"))) double port_bound_loop(long iterations) {
  double x[16];
  for (int j = 0; j < 16; ++j) x[j] = 1.0 + j * 1e-3;
  const double up = 1.0000001, down = 1 / up;  // alternately, so no value drifts toward a subnormal
  for (long i = 0; i < iterations; ++i) {
    for (double &v : x) v *= up;
    for (double &v : x) v *= down;
  }
  double sum = 0;
  for (double v : x) sum += v;
  return sum;
}

std::atomic<double> sink{0};

double seconds_of_loop() {
  const auto start = std::chrono::steady_clock::now();
  sink.store(sink.load(std::memory_order_relaxed) + port_bound_loop(kLoopIterations), std::memory_order_relaxed);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The loop's seconds on `cpu`, with the loop running on `partner` meanwhile when it is >= 0.
double loop_seconds(int cpu, int partner) {
  std::atomic<bool> stop{false}, partner_running{partner < 0};
  std::thread busy;
  if (partner >= 0)
    busy = std::thread([&] {
      pin_this_thread(partner);
      partner_running = true;
      double sum = 0;
      while (!stop.load(std::memory_order_relaxed)) sum += port_bound_loop(1024);
      sink.store(sum, std::memory_order_relaxed);
    });
  double seconds = 0;
  std::thread timed([&] {
    pin_this_thread(cpu);
    while (!partner_running.load()) std::this_thread::yield();
    seconds = seconds_of_loop();
  });
  timed.join();
  stop = true;
  if (busy.joinable()) busy.join();
  return seconds;
}

}  // namespace

double loop_slowdown(int cpu, int partner) {
  // The better of two each way, so that a moment of someone else's load reads as neither.
  const double alone = std::min(loop_seconds(cpu, -1), loop_seconds(cpu, -1));
  const double beside = std::min(loop_seconds(cpu, partner), loop_seconds(cpu, partner));
  return beside > 0 ? alone / beside : 1;
}

CorePairs find_shared_cores(const std::vector<int> &cpus, const PairSlowdown &slowdown) {
  const int n = static_cast<int>(cpus.size());
  std::vector<bool> paired(cpus.size(), false);
  std::set<std::pair<int, int>> tried;
  CorePairs pairs;
  for (int i = 0; i < n; ++i) {
    if (paired[i]) continue;
    for (int j : {i + n / 2, i + 1, i - 1}) {
      if (j < 0 || j >= n || j == i || paired[j] || !tried.emplace(std::min(i, j), std::max(i, j)).second) continue;
      if (slowdown(cpus[i], cpus[j]) < kSharedCoreSlowdown && slowdown(cpus[i], cpus[j]) < kSharedCoreSlowdown) {
        paired[i] = paired[j] = true;
        pairs.emplace_back(std::min(cpus[i], cpus[j]), std::max(cpus[i], cpus[j]));
        break;
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::string core_pairs_text(const CorePairs &pairs) {
  std::string text;
  for (const auto &[a, b] : pairs) text += (text.empty() ? "" : ",") + std::to_string(a) + "+" + std::to_string(b);
  return text;
}

std::optional<CorePairs> parse_core_pairs(const std::string &text) {
  CorePairs pairs;
  if (text.empty() || text == "none") return pairs;
  if (text.back() == ',') return std::nullopt;
  std::stringstream in(text);
  std::string item;
  std::set<int> seen;
  while (std::getline(in, item, ',')) {
    const std::size_t plus = item.find('+');
    if (plus == std::string::npos || plus == 0 || plus + 1 == item.size() ||
        item.find_first_not_of("0123456789+") != std::string::npos || item.find('+', plus + 1) != std::string::npos)
      return std::nullopt;
    const int a = std::atoi(item.substr(0, plus).c_str()), b = std::atoi(item.substr(plus + 1).c_str());
    if (a == b || !seen.insert(a).second || !seen.insert(b).second) return std::nullopt;
    pairs.emplace_back(std::min(a, b), std::max(a, b));
  }
  return pairs;
}

CpuTopology with_core_pairs(CpuTopology topology, const CorePairs &pairs) {
  const auto single_core_of = [&](int cpu) -> long {
    for (std::size_t i = 0; i < topology.cores.size(); ++i)
      if (topology.cores[i].cpus.size() == 1 && topology.cores[i].cpus[0] == cpu) return static_cast<long>(i);
    return -1;
  };
  std::vector<bool> merged_away(topology.cores.size(), false);
  for (const auto &[a, b] : pairs) {
    const long first = single_core_of(a), second = single_core_of(b);
    if (first < 0 || second < 0 || merged_away[first] || merged_away[second]) continue;
    topology.cores[first].cpus = {a, b};
    merged_away[second] = true;
  }
  std::vector<PhysicalCore> kept;
  for (std::size_t i = 0; i < topology.cores.size(); ++i)
    if (!merged_away[i]) kept.push_back(std::move(topology.cores[i]));
  topology.cores = std::move(kept);
  return topology;
}

CorePairs core_pairs_from_environment() {
  const char *text = std::getenv("HPCREWARD_CORE_PAIRS");
  if (text == nullptr) return {};
  return parse_core_pairs(text).value_or(CorePairs{});
}

CorePairs launcher_core_pairs(const std::vector<int> &cpus, const std::string &hidden_core_sharing, std::string &how) {
  if (const char *text = std::getenv("HPCREWARD_CORE_PAIRS")) {
    const std::optional<CorePairs> given = parse_core_pairs(text);
    how = given ? std::string("HPCREWARD_CORE_PAIRS=") + text
                : "none: HPCREWARD_CORE_PAIRS is not of the form 0+8,1+9 (or none), so it is ignored";
    return given.value_or(CorePairs{});
  }
  if (hidden_core_sharing.empty()) {
    how = "none measured: the topology shows the cores";
    return {};
  }
  const auto start = std::chrono::steady_clock::now();
  CorePairs pairs = find_shared_cores(cpus, loop_slowdown);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ostringstream text;
  text.precision(2);
  text << std::fixed << "measured in " << seconds << " s over " << cpus.size()
       << " vCPUs, since the topology of a virtual machine cannot show them (" << hidden_core_sharing << ")";
  how = text.str();
  return pairs;
}

}  // namespace hpcreward
