// A stand-in for `hpcreward-gpu-runner --serve` without CUDA, for the rank's side of serving
// measurers (gpu_child_test.cpp): the same gate and frames, a behaviour chosen by the
// candidate object's file name, and a reason that names this process and its run count so
// that a test sees which measurer served which run.
//   ok        r, c (after 'q'), then a result `ok` after 't', then 'e'
//   wrong     the same, `wrong_answer`
//   wrong-early  `wrong_answer` after 'c' without waiting for 't' (verification failed)
//   set-up-fails  ends on 'p' without 'r' (a runtime_error, then 'e'), as a measurer does
//             that cannot make its executor's context or operand pool
//   early     ends before its calibration (a runtime_error, then 'e'), as a failed canary does
//   linger    as ok, but its end (the executor's, in the real one) takes 0.3 s after the
//             result; then it writes the file `ended` in the run's directory and says 'e'
//   die       exits in the middle of its run, without a result
//   hang      never answers after 'g'
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <string>

#include <nlohmann/json.hpp>

#include "bench_node/gpu/start_gate.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/process/frames.hpp"
#include "bench_node/process/result_envelope.hpp"
#include "bench_node/process/write_all.hpp"

namespace {

using namespace hpcreward;

std::string object_of(const nlohmann::json &arguments) {
  for (std::size_t i = 0; i + 1 < arguments.size(); ++i)
    if (arguments[i] == "--object") return std::filesystem::path(arguments[i + 1].get<std::string>()).filename();
  return "";
}

}  // namespace

int main() {
  const gpu::StartGate gate(kChildGateFd);
  int runs = 0;
  while (std::optional<std::string> text = gate.await_task()) {
    const nlohmann::json task = nlohmann::json::parse(*text);
    const std::string behaviour = object_of(task.at("arguments"));
    Measurement measurement;
    measurement.reason = "pid " + std::to_string(::getpid()) + " run " + std::to_string(++runs) + " in " +
                         task.at("directory").get<std::string>();
    if (!gate.await(gpu::kGatePrepare)) return 1;
    if (behaviour == "set-up-fails") {
      measurement.status = Status::runtime_error;
      write_all(3, frame(encode_result(task.at("token").get<std::string>(), measurement)));
      gate.say(gpu::kGateEnded);
      continue;
    }
    gate.say(gpu::kGateReady);
    if (!gate.await(gpu::kGateGo)) return 1;
    if (behaviour == "die") ::_exit(3);
    if (behaviour == "hang") ::pause();
    if (behaviour == "early") {
      measurement.status = Status::runtime_error;
    } else if (behaviour == "wrong-early") {
      if (!gate.await(gpu::kGateQuiet)) return 1;
      gate.say(gpu::kGateCalibrated);
      measurement.status = Status::wrong_answer;
    } else {
      if (!gate.await(gpu::kGateQuiet)) return 1;
      gate.say(gpu::kGateCalibrated);
      if (!gate.await(gpu::kGateTime)) return 1;
      measurement.status = behaviour == "wrong" ? Status::wrong_answer : Status::ok;  // ok, linger
    }
    write_all(3, frame(encode_result(task.at("token").get<std::string>(), measurement)));
    if (behaviour == "linger") {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      std::ofstream(std::filesystem::path(task.at("directory").get<std::string>()) / "ended") << "ended\n";
    }
    gate.say(gpu::kGateEnded);
  }
  return 0;
}
