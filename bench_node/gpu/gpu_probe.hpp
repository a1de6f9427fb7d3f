#pragma once
// What a GPU rank learns about its device at start, in a child of its own (the rank never
// creates a CUDA context): the device's properties and its ceilings (cuBLAS D/S/HGEMM at the
// largest problem size, the peak guard's basis), and the canary that tells a healthy GPU after
// a candidate faulted it.
#include <string>

#include "bench_node/gpu/gpu_ceilings.hpp"
#include "common/messages.hpp"

namespace hpcreward::gpu {

// Properties of device 0 as this process sees it (CUDA_VISIBLE_DEVICES picks it).
GpuInfo describe_device();

// cuBLAS at size^3 per precision: warm-up, then the median of `reps` event-timed calls.
GpuCeilings measure_ceilings(int size, int reps);

// A small kernel with a known answer; "" when right, else what went wrong.
std::string run_canary();

}  // namespace hpcreward::gpu
