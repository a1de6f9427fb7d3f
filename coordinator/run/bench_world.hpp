#pragma once
// What a run needs from outside the coordinator library: the benchmark ranks (their hellos,
// the transport to them, telling them to stop) and the provenance of a new log (it names the
// MPI library and the program's revision). MPI in production (mpi_world.hpp, linked into the
// coordinator's program only); tests give a fake, so a whole run is tested without MPI.
#include <chrono>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/run/options.hpp"
#include "coordinator/ranks/transport.hpp"
#include "results/provenance.hpp"

namespace hpcreward {

class BenchWorld {
 public:
  virtual ~BenchWorld() = default;
  // How many benchmark ranks there are (every rank of the world but the coordinator).
  virtual int bench_ranks() const = 0;
  // Every benchmark rank's hello; throws std::runtime_error naming the ranks that did not say
  // hello within `timeout`.
  virtual std::vector<RankInfo> gather_hellos(std::chrono::seconds timeout) = 0;
  virtual BenchTransport &transport() = 0;
  // Tells every benchmark rank to finish. Safe to call more than once.
  virtual void stop_ranks() = 0;
  virtual Provenance new_log_provenance(const CoordinatorOptions &options, const std::vector<RankInfo> &ranks) = 0;
};

}  // namespace hpcreward
