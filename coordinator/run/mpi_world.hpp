#pragma once
// The coordinator's BenchWorld over MPI: rank 0 of a world whose other ranks run
// hpcreward-bench. Part of the program only (main.cpp), like everything that calls MPI.
#include "coordinator/run/bench_world.hpp"
#include "coordinator/ranks/mpi_transport.hpp"
#include "coordinator/run/provenance_builder.hpp"

namespace hpcreward {

class MpiWorld : public BenchWorld {
 public:
  explicit MpiWorld(int world_size) : world_size_(world_size) {}

  int bench_ranks() const override { return world_size_ - 1; }
  std::vector<RankInfo> gather_hellos(std::chrono::seconds timeout) override {
    return gather_rank_info(world_size_, timeout);
  }
  BenchTransport &transport() override { return transport_; }
  void stop_ranks() override { stop_bench_ranks(world_size_); }
  Provenance new_log_provenance(const CoordinatorOptions &options, const std::vector<RankInfo> &ranks) override {
    return build_provenance(options, ranks);
  }

 private:
  int world_size_;
  MpiTransport transport_;
};

}  // namespace hpcreward
