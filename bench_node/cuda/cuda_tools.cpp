#include "bench_node/cuda/cuda_tools.hpp"

namespace hpcreward {

std::string default_nvcc_path() { return HPCREWARD_DEFAULT_NVCC; }
std::string default_cuobjdump_path() { return HPCREWARD_DEFAULT_CUOBJDUMP; }
std::string default_nvdisasm_path() { return HPCREWARD_DEFAULT_NVDISASM; }

}  // namespace hpcreward
