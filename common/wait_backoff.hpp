#pragma once
// The pauses of a wait that polls (an MPI receive: Open MPI's blocking receive spins a core at
// 100%). A fixed sleep either wakes often for nothing or answers late; backing off does
// neither: the first looks only yield the CPU, so an answer that comes at once is taken at
// once, then the sleeps double up to a cap, so a long wait costs about one look per cap and a
// message waits for at most about as long as the wait had already lasted (or the cap).
#include <algorithm>
#include <chrono>

namespace hpcreward {

class WaitBackoff {
 public:
  using Micros = std::chrono::microseconds;
  // `yields`: looks that only yield; then sleeps of `first_sleep`, doubling up to `max_sleep`.
  constexpr WaitBackoff(int yields, Micros first_sleep, Micros max_sleep)
      : yields_left_(std::max(yields, 0)),
        next_sleep_(std::max(first_sleep, Micros(1))),
        max_sleep_(std::max(max_sleep, std::max(first_sleep, Micros(1)))) {}

  // The pause before the next look: zero (a yield) while yields are left, else the next sleep.
  constexpr Micros next() {
    if (yields_left_ > 0) {
      --yields_left_;
      return Micros(0);
    }
    const Micros sleep = next_sleep_;
    next_sleep_ = std::min(next_sleep_ * 2, max_sleep_);
    return sleep;
  }

 private:
  int yields_left_;
  Micros next_sleep_;
  Micros max_sleep_;
};

}  // namespace hpcreward
