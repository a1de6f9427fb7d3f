#pragma once
// Seeded input generation: a small fast generator (xoshiro256**) and uniform fills in [-1, 1].
#include <cstdint>
#include <span>

namespace hpcreward {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  double uniform();  // in [-1, 1)

 private:
  std::uint64_t state_[4];
};

// 64 bits from the kernel's random source (getrandom). Every value a candidate must not
// predict (input values, check vectors, canaries) starts from one of these, drawn for that
// use alone: xoshiro's outputs reveal its state, so one generator must never feed two secrets.
std::uint64_t kernel_random_u64();

void fill_uniform(std::span<double> values, Rng &rng);
void fill_uniform(std::span<float> values, Rng &rng);

}  // namespace hpcreward
