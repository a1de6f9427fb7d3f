#include "coordinator/run/provenance_builder.hpp"

#include <mpi.h>

#include <chrono>
#include <ctime>

#include "common/git_revision.hpp"
#include "common/messages_json.hpp"
#include "common/node_name.hpp"

namespace hpcreward {
namespace {

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  if (auto newline = version.find('\n'); newline != std::string::npos) version.resize(newline);
  return version;
}

}  // namespace

std::string this_host() { return node_name(); }

Provenance build_provenance(const CoordinatorOptions &options, const std::vector<RankInfo> &ranks) {
  Provenance provenance;
  provenance.created_utc = utc_now();
  provenance.git_revision = git_revision();
  provenance.config_json = options.as_json.dump();
  provenance.hosts_json = nlohmann::json(ranks).dump();
  // Ranks on one cluster normally share a toolchain; the per-rank values are in hosts_json.
  if (!ranks.empty()) {
    provenance.compiler_version = ranks.front().compiler_version;
    provenance.blas_version = ranks.front().blas_version;
  }
  provenance.mpi_version = mpi_library_version();
  provenance.seed = std::to_string(options.seed);
  provenance.reward_mode = options.rewards.mode().text();
  return provenance;
}

}  // namespace hpcreward
