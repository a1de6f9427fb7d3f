#pragma once
// One row of /rewards: a scored candidate, its reward and the raw measurement beside it.
#include <cstdint>
#include <string>

namespace hpcreward {

struct RewardRow {
  std::string candidate_id;  // at most 64 bytes are stored
  std::string batch_id;      // at most 64 bytes
  std::string problem;       // at most 32 bytes
  std::string stage;         // at most 32 bytes
  std::string status;        // a Status name (common/status.hpp)
  std::string reason;        // at most 256 bytes; longer reasons are cut at a UTF-8 boundary
  double reward = 0;
  double gflops = 0;
  double median_s = 0;
  double min_s = 0;
  double iqr_s = 0;
  double cv = 0;
  std::int32_t reps = 0;
  double max_error = 0;
  double compile_s = 0;
  double verify_s = 0;
  double time_s = 0;
  std::string source_sha256;  // 64 hex digits; empty when there was no code
  std::int32_t rank = 0;      // benchmark rank; 0 when the coordinator decided alone
  std::string host;           // at most 64 bytes
  double time = 0;            // seconds since the Unix epoch when the row was written
  std::uint64_t seed = 0;     // seed of the inputs
  // Schema v2: the technique descriptor and what the row did to the archive.
  std::string techniques;     // "openmp+avx512", "plain"; empty when detection did not run
  std::string loop_order;     // at most 8 bytes: "ikj", ...; empty when unknown
  std::string tile_sizes;     // at most 32 bytes: "64x64"; empty when none
  std::string archive;        // "new_niche", "new_elite" or empty
  // Schema v3: what timed it, at most 64 bytes: "cpu" on CPU ranks, the GPU on GPU
  // ranks ("cuda:0 NVIDIA H100 80GB HBM3"); empty when the coordinator decided alone.
  std::string device;
  // Schema v5: repeated candidates. `measurement_key`: 64 hex digits, the SHA-256 of
  // everything that decides a rank's measurement (coordinator/scoring/measurement_key.hpp); empty when
  // the coordinator decided alone. `measured_as`/`measured_batch`: the candidate and batch id
  // of the earlier row whose measurement this row reuses (an identical candidate); empty when
  // the row was measured for itself.
  std::string measurement_key;
  std::string measured_as;     // at most 64 bytes
  std::string measured_batch;  // at most 64 bytes
  // Schema v6: the scoring rank's yardsticks for the problem (common/yardsticks.hpp), GFLOPS;
  // 0 where not measured. With `gflops` they re-score the row in any reward mode.
  double openblas_gflops = 0;
  double cublas_gflops = 0;
  double cublaslt_gflops = 0;
  // Schema v7: what the model is told about the row, at most 512 bytes (prompts/model_feedback.hpp),
  // and, for multi-turn training, the episode (at most 64 bytes) and turn (1, 2, ...) the
  // candidate was; "" and 0 outside an episode.
  std::string feedback;
  std::string episode;
  std::int32_t turn = 0;
};

}  // namespace hpcreward
