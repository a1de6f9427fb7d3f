#pragma once
// The hardware a prompt tells the model about: what a benchmark rank said of itself in its
// hello (RankInfo), or, for a prompt made without a running pipeline, this machine's CPU.
#include <string>
#include <vector>

#include "common/messages.hpp"

namespace hpcreward::prompts {

struct NodeDescription {
  std::string kind = "cpu";  // "cpu": scores C problems; "gpu": CUDA problems
  std::string cpu_model;     // "" when unknown
  int cores = 0;             // CPUs a candidate's process may run on
  bool avx512 = false;
  std::string compiler;      // "gcc (Debian 12.2.0-14) 12.2.0", "nvcc 13.0"
  GpuInfo gpu;               // GPU ranks
  std::string cute;          // GPU ranks: the CUTLASS release of their CuTe headers, or ""

  // One line in words: "Intel(R) Xeon(R) ..., 1 core for your code, AVX-512: yes; compiler gcc ...".
  std::string text() const;
};

NodeDescription node_from_rank(const RankInfo &rank);
// This machine's CPU, as a CPU rank started here with `cores` CPUs would describe it.
NodeDescription this_machine_cpu(int cores);

// The ranks of `kind`, one description per different text (a cluster of alike nodes is one).
std::vector<NodeDescription> nodes_of_kind(const std::vector<RankInfo> &ranks, const std::string &kind);

}  // namespace hpcreward::prompts
