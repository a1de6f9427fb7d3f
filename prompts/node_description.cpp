#include "prompts/node_description.hpp"

#include <algorithm>
#include <cstdio>

#include "common/cpu_model.hpp"

namespace hpcreward::prompts {

namespace {

std::string gib(std::uint64_t bytes, double unit, const char *name) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %s", static_cast<double>(bytes) / unit, name);
  return text;
}

}  // namespace

std::string NodeDescription::text() const {
  if (kind == "gpu") {
    if (gpu.name.empty())
      return "an NVIDIA GPU whose rank has not described it yet (a running pipeline's GET /v1/prompts, or "
             "hpcreward-prompts --hosts with a run's hosts, names it)";
    std::string line = gpu.name + " (";
    if (!gpu.arch.empty()) line += gpu.arch + ", ";
    if (!gpu.compute_capability.empty()) line += "compute capability " + gpu.compute_capability + ", ";
    if (gpu.multiprocessors > 0) line += std::to_string(gpu.multiprocessors) + " SMs, ";
    if (gpu.memory_bytes > 0) line += gib(gpu.memory_bytes, 1073741824.0, "GiB") + " of memory, ";
    if (gpu.l2_bytes > 0) line += gib(gpu.l2_bytes, 1048576.0, "MiB") + " of L2, ";
    line.resize(line.size() - 2);
    line += ")";
    if (!gpu.runtime_version.empty()) line += ", CUDA " + gpu.runtime_version;
    if (!compiler.empty()) line += "; compiler " + compiler;
    return line;
  }
  std::string line = cpu_model.empty() ? std::string("an x86-64 CPU") : cpu_model;
  if (cores > 0) line += ", " + std::to_string(cores) + (cores == 1 ? " core" : " cores") + " for your code";
  line += avx512 ? ", AVX-512: yes" : ", AVX-512: no (AVX2 at most)";
  if (!compiler.empty()) line += "; compiler " + compiler;
  return line;
}

NodeDescription node_from_rank(const RankInfo &rank) {
  NodeDescription node;
  node.kind = rank.kind;
  node.cpu_model = rank.cpu_model;
  node.cores = rank.cores;
  node.avx512 = rank.avx512;
  node.compiler = rank.compiler_version;
  node.gpu = rank.gpu;
  node.cute = rank.cute;
  return node;
}

NodeDescription this_machine_cpu(int cores) {
  NodeDescription node;
  node.cpu_model = cpu_model();
  node.cores = cores;
  __builtin_cpu_init();
  node.avx512 = __builtin_cpu_supports("avx512f") != 0;
  return node;
}

std::vector<NodeDescription> nodes_of_kind(const std::vector<RankInfo> &ranks, const std::string &kind) {
  std::vector<NodeDescription> nodes;
  std::vector<std::string> seen;
  for (const RankInfo &rank : ranks) {
    if (rank.kind != kind || rank.null_measurement) continue;
    NodeDescription node = node_from_rank(rank);
    const std::string text = node.text();
    if (std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
    seen.push_back(text);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace hpcreward::prompts
