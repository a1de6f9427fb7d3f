#pragma once
// A stop request's grace (--stop-grace-s). Once a stop is requested (a requeue: SIGUSR1; in
// file mode also SIGTERM/SIGINT) scoring sends no new task and waits at most the grace for
// the tasks the ranks hold; those not answered by then get no row, so a resume scores exactly
// them. No clock of its own: every call is told the time, so tests use a fake one.
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace hpcreward {

class StopGrace {
 public:
  using Clock = std::chrono::steady_clock;

  // `requested`: asked until it says yes (empty: never); `grace_s` below 0 counts as 0.
  StopGrace(std::function<bool()> requested, double grace_s);

  // Asks for a stop, unless the run is stopping already. The first yes starts the grace at
  // `now` and returns the line that says so (`held`: the tasks the ranks hold).
  std::optional<std::string> check(Clock::time_point now, std::size_t held);
  bool stopping() const { return stopping_; }
  // When the grace ends; nullopt while not stopping.
  std::optional<Clock::time_point> deadline() const;
  bool over(Clock::time_point now) const { return stopping_ && now >= deadline_; }

 private:
  std::function<bool()> requested_;
  double grace_s_;
  bool stopping_ = false;
  Clock::time_point deadline_{};
};

}  // namespace hpcreward
