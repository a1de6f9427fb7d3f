#pragma once
// CUDA runtime and cuBLAS errors as exceptions inside the GPU runner. The runner turns them
// into a Measurement at its edge (gpu_runner_main.cpp): a failed call while the candidate's
// code was on the device is the candidate's runtime_error; anything else is the harness's.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace hpcreward::gpu {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string &what)
      : std::runtime_error(what + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
        code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void cuda_call(cudaError_t code, const char *what) {
  if (code != cudaSuccess) throw CudaError(code, what);
}

// After kernel launches of the harness: a launch error, else nothing.
inline void cuda_check_launch(const char *what) { cuda_call(cudaGetLastError(), what); }

}  // namespace hpcreward::gpu
