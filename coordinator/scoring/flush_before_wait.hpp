#pragma once
// A BenchTransport that runs a hook each time rank 0 is about to block for results: while
// answers keep arriving, rows and progress lines wait in buffers; the moment none is there,
// they are flushed (the log rows made durable, the lines printed) before the wait begins.
// So a row is never held back longer than rank 0 is busy, and batching costs no latency.
#include <functional>
#include <utility>

#include "coordinator/ranks/transport.hpp"

namespace hpcreward {

class FlushBeforeWait : public BenchTransport {
 public:
  FlushBeforeWait(BenchTransport &inner, std::function<void()> before_wait)
      : inner_(inner), before_wait_(std::move(before_wait)) {}

  void send_task(int rank, const BenchTask &task) override { inner_.send_task(rank, task); }

  std::optional<BenchResult> receive_result(std::chrono::milliseconds timeout) override {
    if (timeout.count() <= 0) return inner_.receive_result(timeout);
    if (std::optional<BenchResult> ready = inner_.receive_result(std::chrono::milliseconds(0))) return ready;
    before_wait_();
    return inner_.receive_result(timeout);
  }

 private:
  BenchTransport &inner_;
  std::function<void()> before_wait_;
};

}  // namespace hpcreward
