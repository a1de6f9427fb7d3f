#pragma once
// Root attributes of a reward log: enough to say what produced every number in it.
#include <string>

namespace hpcreward {

// 2: technique columns in /rewards, /stage_events and /archive.
// 3: the device column in /rewards.
// 4: /rank_events (quarantined benchmark ranks).
// 5: /rewards measurement_key, measured_as, measured_batch (repeated candidates).
// 6: /rewards openblas_gflops, cublas_gflops, cublaslt_gflops (yardsticks); the reward_mode
//    attribute.
// 7: /rewards feedback (what the model is told), episode and turn (multi-turn training).
// Readers still read 1 to 6.
inline constexpr int kRewardLogSchemaVersion = 7;

struct Provenance {
  int schema_version = kRewardLogSchemaVersion;
  std::string created_utc;       // ISO 8601
  std::string git_revision;
  std::string config_json;       // every option of the run, as JSON
  std::string hosts_json;        // the benchmark ranks: [{rank, host, cores, kind, gpu, ...}]
  std::string compiler_version;  // candidate compiler, first line of `cc --version`
  std::string blas_version;      // OpenBLAS build configuration
  std::string mpi_version;
  std::string hdf5_version;      // filled in by the writer
  std::string seed;              // decimal, so 64-bit seeds survive every reader
  std::string reward_mode = "gflops";  // schema 6 (older logs: gflops): what /rewards' reward is
};

}  // namespace hpcreward
