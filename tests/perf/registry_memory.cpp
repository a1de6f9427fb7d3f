// What serve mode's batch registry holds per logged row after --resume: reads a
// reward log's rows, then restores them into a BatchRegistry (restore_logged_batches, as the
// coordinator does at start) and reports the heap bytes each step added, per row (glibc's
// mallinfo2: bytes in use, mmap-ed blocks included; freed memory is not counted).
//
//   registry_memory LOG.h5
//
// Prints one JSON object: rows, batches, heap bytes per row of the rows as read (a
// std::vector<RewardRow>: what main.cpp held for the whole run before), and of the registry.
// Not a test: no target is judged here; coordinator/README.md ("Memory after --resume") keeps
// the numbers. Built against any revision that has restore_logged_batches, so the same
// program measures before and after a change.
#include <malloc.h>

#include <cstdio>
#include <exception>
#include <set>

#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "results/reward_log.hpp"

namespace {

// Bytes in use: small chunks plus the mmap-ed large ones (a big vector lives there).
std::size_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

double per_row(std::size_t before, std::size_t after, std::size_t rows) {
  return rows == 0 ? 0.0 : (static_cast<double>(after) - static_cast<double>(before)) / static_cast<double>(rows);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: registry_memory LOG.h5 (a reward log, e.g. OUT/rewards.h5 of a run)\n");
    return 2;
  }
  try {
    const std::size_t start = heap_in_use();
    std::vector<hpcreward::RewardRow> rows = hpcreward::read_rewards(argv[1]);
    rows.shrink_to_fit();
    const std::size_t with_rows = heap_in_use();
    std::set<std::string> batch_ids;
    for (const hpcreward::RewardRow &row : rows) batch_ids.insert(row.batch_id);
    const std::size_t with_ids = heap_in_use();
    hpcreward::BatchRegistry registry;
    const std::size_t batches = hpcreward::restore_logged_batches(registry, rows);
    const std::size_t with_registry = heap_in_use();
    std::printf("{\"rows\": %zu, \"batches\": %zu, \"rows_bytes_per_row\": %.1f, \"registry_bytes_per_row\": %.1f}\n",
                rows.size(), batches, per_row(start, with_rows, rows.size()),
                per_row(with_ids, with_registry, rows.size()));
    return batches == batch_ids.size() ? 0 : 1;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "registry_memory: %s\n", error.what());
    return 1;
  }
}
