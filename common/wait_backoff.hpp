#pragma once
// The pauses of a wait that polls (an MPI receive: Open MPI's blocking receive spins a core at
// 100%). A fixed sleep either wakes often for nothing or answers late; backing off does
// neither: the first looks only yield the CPU, so an answer that comes at once is taken at
// once, then the sleeps double up to a prompt cap (1 ms on the MPI waits). Past that, a sleep
// is a hundredth of the time slept so far, up to a hard cap: a message waits at most about 1%
// longer than the wait had already lasted (or the prompt cap), and a long idle wait costs
// about one look per hard cap.
//
// Why the two caps: a candidate takes 20 ms (a compile error) to seconds, so doubling straight
// to a 10 ms cap made every hand-over between a rank and the coordinator wait about as long
// again (measured: 26 ms of a compile error's 44 ms went to the two waits; with 1 ms caps,
// 4 ms), while a cap of 1 ms for every wait would wake an idle rank a thousand times a second
// for hours.
#include <algorithm>
#include <chrono>

namespace hpcreward {

class WaitBackoff {
 public:
  using Micros = std::chrono::microseconds;
  // A sleep past the prompt cap is this share of the time slept so far.
  static constexpr long kLateShareDivisor = 100;

  // `yields`: looks that only yield; then sleeps of `first_sleep`, doubling up to
  // `prompt_sleep`; then sleeps of a hundredth of the time slept so far, between `prompt_sleep`
  // and `max_sleep`.
  constexpr WaitBackoff(int yields, Micros first_sleep, Micros prompt_sleep, Micros max_sleep)
      : yields_left_(std::max(yields, 0)),
        next_sleep_(std::max(first_sleep, Micros(1))),
        prompt_sleep_(std::max(prompt_sleep, next_sleep_)),
        max_sleep_(std::max(max_sleep, prompt_sleep_)) {}
  // Sleeps double up to `max_sleep` and stay there.
  constexpr WaitBackoff(int yields, Micros first_sleep, Micros max_sleep)
      : WaitBackoff(yields, first_sleep, max_sleep, max_sleep) {}

  // Goes on with a wait that had already lasted `waited` before this backoff took over (a
  // caller that polls in slices, waiting for the same thing across calls): no yields, and the
  // next sleep is what the wait would have reached by now.
  constexpr void resume(Micros waited) {
    if (waited <= Micros(0)) return;
    yields_left_ = 0;
    slept_ = waited;
    next_sleep_ = std::clamp(std::max(waited / kLateShareDivisor, std::min(waited, prompt_sleep_)), next_sleep_, max_sleep_);
  }

  // The pause before the next look: zero (a yield) while yields are left, else the next sleep.
  constexpr Micros next() {
    if (yields_left_ > 0) {
      --yields_left_;
      return Micros(0);
    }
    const Micros sleep = next_sleep_;
    slept_ += sleep;
    const Micros doubled = std::min(next_sleep_ * 2, prompt_sleep_);
    next_sleep_ = std::clamp(slept_ / kLateShareDivisor, doubled, max_sleep_);
    return sleep;
  }

 private:
  int yields_left_;
  Micros next_sleep_;
  Micros prompt_sleep_;
  Micros max_sleep_;
  Micros slept_{0};
};

}  // namespace hpcreward
