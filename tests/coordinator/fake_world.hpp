#pragma once
// A BenchWorld without MPI for run tests: CPU ranks 1..n that answer through the fake
// transport (fake_transport.hpp), and a provenance that records the seed as a real one does.
#include <string>
#include <vector>

#include "coordinator/run/bench_world.hpp"
#include "fake_transport.hpp"

namespace hpcreward::test_support {

class FakeWorld : public BenchWorld {
 public:
  explicit FakeWorld(int cpu_ranks) {
    for (int rank = 1; rank <= cpu_ranks; ++rank) {
      RankInfo info;
      info.rank = rank;
      info.host = "node" + std::to_string(rank);
      info.kind = "cpu";
      info.avx512 = true;
      hellos.push_back(info);
    }
  }
  int bench_ranks() const override { return static_cast<int>(hellos.size()); }
  std::vector<RankInfo> gather_hellos(std::chrono::seconds) override { return hellos; }
  BenchTransport &transport() override { return fake; }
  void stop_ranks() override { ++stops; }
  Provenance new_log_provenance(const CoordinatorOptions &options, const std::vector<RankInfo> &) override {
    Provenance provenance;
    provenance.seed = std::to_string(options.seed);
    return provenance;
  }

  std::vector<RankInfo> hellos;
  FakeTransport fake;
  int stops = 0;
};

}  // namespace hpcreward::test_support
