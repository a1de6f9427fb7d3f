// A stand-in for rank 0 in front of one real hpcreward-bench rank (mpirun MPMD, this program
// first): it takes the rank's JSON hello, then sends a task cut short after its sequence, a
// well-formed task, and bytes that are not a binary message at all, and checks the answers:
// each malformed task comes back as runtime_error "malformed task: ..." (under its sequence
// when the header still has one), the good one as scored (a --null-measurement rank: the null
// measurement). Then it stops the rank. Exit status 0 when every answer was right.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "common/messages_binary.hpp"
#include "common/messages_json.hpp"
#include "common/mpi_channel.hpp"
#include "common/mpi_tags.hpp"
#include "common/problem_catalog.hpp"
#include "tests/common/message_samples.hpp"

namespace hpcreward {
namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  if (!ok) {
    std::fprintf(stderr, "malformed_task_coordinator: FAILED: %s\n", what.c_str());
    ++failures;
  }
}

// Sends `payload` as a task and returns the rank's answer (nullopt after 60 s).
std::optional<BenchResult> ask(const std::string &payload) {
  mpi_send_bytes(payload, 1, kTagTask);
  const auto envelope = mpi_receive(1, kTagResult, std::chrono::seconds(60));
  if (!envelope) return std::nullopt;
  return decode_result(envelope->payload);
}

bool starts_with(const std::string &text, const std::string &prefix) { return text.rfind(prefix, 0) == 0; }

void run() {
  const auto hello = mpi_receive(1, kTagHello, std::chrono::seconds(120));
  check(hello.has_value(), "the rank's hello within 120 s");
  if (!hello) return;
  const bool null_rank = json_payload(*hello).get<RankInfo>().null_measurement;

  BenchTask task = test::full_task();
  task.problem = *find_problem("dgemm-256");
  task.sequence = 77;
  const std::string truncated = encode_task(task).substr(0, 20);  // header, sequence, part of the id
  if (auto answer = ask(truncated)) {
    check(answer->sequence == 77, "a truncated task is answered under its sequence, got " +
                                      std::to_string(answer->sequence));
    check(answer->measurement.status == Status::runtime_error, "a truncated task is a runtime_error");
    check(starts_with(answer->measurement.reason, "malformed task: binary message truncated"),
          "reason: " + answer->measurement.reason);
  } else {
    check(false, "an answer to the truncated task");
  }

  task.sequence = 78;
  if (auto answer = ask(encode_task(task))) {
    check(answer->sequence == 78 && answer->rank == 1, "the good task's sequence and rank");
    // A scoring rank compiles it (a float matmul for a double problem: it fails, as a candidate).
    check(null_rank ? starts_with(answer->measurement.reason, "null measurement")
                    : !starts_with(answer->measurement.reason, "malformed task"),
          "reason: " + answer->measurement.reason);
  } else {
    check(false, "an answer to the good task");
  }

  if (auto answer = ask(R"({"sequence": 79, "source": "void matmul() {}"})")) {
    check(answer->sequence == 0, "a text without the header has no sequence to answer under");
    check(answer->measurement.status == Status::runtime_error &&
              answer->measurement.reason.find("magic") != std::string::npos,
          "reason: " + answer->measurement.reason);
  } else {
    check(false, "an answer to the JSON text");
  }
  mpi_send_bytes({}, 1, kTagStop);
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    std::fprintf(stderr, "malformed_task_coordinator: run as rank 0 of 2 (mpirun -np 1 THIS : -np 1 hpcreward-bench ...)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hpcreward::run();
  MPI_Finalize();
  if (hpcreward::failures == 0) std::printf("malformed_task_coordinator: ok\n");
  return hpcreward::failures == 0 ? 0 : 1;
}
