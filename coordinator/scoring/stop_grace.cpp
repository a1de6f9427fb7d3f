#include "coordinator/scoring/stop_grace.hpp"

#include <algorithm>

#include "common/number_text.hpp"

namespace hpcreward {

StopGrace::StopGrace(std::function<bool()> requested, double grace_s)
    : requested_(std::move(requested)), grace_s_(grace_s) {}

std::optional<std::string> StopGrace::check(Clock::time_point now, std::size_t held) {
  if (stopping_ || !requested_ || !requested_()) return std::nullopt;
  stopping_ = true;
  deadline_ = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(grace_s_, 0.0)));
  return "stopping: no new tasks; " +
         (held == 0 ? std::string("no task is out on a rank")
                    : "waiting up to " + seconds_text(grace_s_) + " for the " + std::to_string(held) +
                          (held == 1 ? " task" : " tasks") + " the ranks hold");
}

std::optional<StopGrace::Clock::time_point> StopGrace::deadline() const {
  return stopping_ ? std::optional<Clock::time_point>(deadline_) : std::nullopt;
}

}  // namespace hpcreward
