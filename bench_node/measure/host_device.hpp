#pragma once
// HPCREWARD_HOST_DEVICE: a function the measurer's host code and its CUDA kernels both call
// (the inputs' values, the scaled normwise error), compiled for both under nvcc.
#if defined(__CUDACC__)
#define HPCREWARD_HOST_DEVICE __host__ __device__
#else
#define HPCREWARD_HOST_DEVICE
#endif
