#pragma once
// Where the CUDA tools the GPU ranks run were found when the project was configured
// (cmake/Dependencies.cmake: HPCREWARD_NVCC, HPCREWARD_CUOBJDUMP, HPCREWARD_NVDISASM).
#include <string>

namespace hpcreward {

std::string default_nvcc_path();
std::string default_cuobjdump_path();
std::string default_nvdisasm_path();

}  // namespace hpcreward
