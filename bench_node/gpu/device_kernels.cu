#include "bench_node/gpu/device_kernels.hpp"

#include <cub/block/block_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/measure/input_values.hpp"
#include "bench_node/measure/scaled_normwise.hpp"

namespace hpcreward::gpu {

namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t count) {
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 16 ? (blocks == 0 ? 1 : blocks) : 65535 * 16);
}

// Kernels that sum into one address: enough blocks to fill any GPU, few enough that the
// blocks' atomics (one per block and field) cost nothing.
int reduction_blocks(std::size_t count) { return std::min(blocks_for(count), 4096); }

struct Max {
  template <typename V> __device__ V operator()(V a, V b) const { return a > b ? a : b; }
};
struct Min {
  template <typename V> __device__ V operator()(V a, V b) const { return a < b ? a : b; }
};
struct Sum {
  template <typename V> __device__ V operator()(V a, V b) const { return a + b; }
};

// The block's reduction of `value`, valid in thread 0. Every thread of the block must call it.
// One atomic per block instead of one per thread: millions of atomics on one address
// serialise (a 4096^2 comparison took 57 ms that way on an H200; it reads 0.3 GB).
template <typename V, typename Op>
__device__ V block_reduce(V value, Op op) {
  using Reduce = cub::BlockReduce<V, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const V result = Reduce(storage).Reduce(value, op);
  __syncthreads();  // the storage is reused by the block's next reduction
  return result;
}

template <typename T> __device__ inline T from_double(double v);
template <> __device__ inline double from_double<double>(double v) { return v; }
template <> __device__ inline float from_double<float>(double v) { return static_cast<float>(v); }
template <> __device__ inline __half from_double<__half>(double v) { return __double2half(v); }
template <> __device__ inline __nv_bfloat16 from_double<__nv_bfloat16>(double v) { return __double2bfloat16(v); }

template <typename T> __device__ inline double to_double(T v);
template <> __device__ inline double to_double<double>(double v) { return v; }
template <> __device__ inline double to_double<float>(float v) { return v; }
template <> __device__ inline double to_double<__half>(__half v) { return __half2float(v); }
template <> __device__ inline double to_double<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__global__ void fill_operand_kernel(T *data, int rows, int cols, std::uint64_t seed, Operand which,
                                    bool patterned) {
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    int exponent = 0;
    const double mantissa = input_mantissa(seed, which, cols, i, patterned, &exponent);
    data[i] = from_double<T>(ldexp(mantissa, exponent));
  }
}

template <typename T>
__global__ void fill_nan_kernel(T *data, std::size_t count) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    data[i] = from_double<T>(nan(""));
}

// One thread per output element: writes coalesce, reads stride (set-up, outside any clock).
template <typename T>
__global__ void transpose_kernel(const T *in, T *out, int rows, int cols, int count) {
  const std::size_t size = static_cast<std::size_t>(rows) * cols, total = size * count;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t product = i / size, within = i % size;
    const std::size_t col = within / rows, row = within % rows;  // out is cols x rows
    out[i] = in[product * size + row * cols + col];
  }
}

__global__ void fill_guard_kernel(unsigned char *data, std::size_t bytes, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    data[i] = static_cast<unsigned char>(input_mix(seed + i));
}

__global__ void count_guard_kernel(const unsigned char *data, std::size_t bytes, std::uint64_t seed,
                                   unsigned long long *mismatches) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += data[i] != static_cast<unsigned char>(input_mix(seed + i));
  if (local) atomicAdd(mismatches, local);
}

__global__ void checksum_kernel(const unsigned char *data, std::size_t bytes, unsigned long long *sum) {
  unsigned long long local = 0;
  const std::size_t words = bytes / 8;
  const auto *word = reinterpret_cast<const unsigned long long *>(data);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += input_mix(word[i] ^ input_mix(i + 1));
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (std::size_t i = words * 8; i < bytes; ++i) local += input_mix(data[i] ^ input_mix(i + 77));
  local = block_reduce(local, Sum{});
  if (threadIdx.x == 0) atomicAdd(sum, local);
}

template <typename T>
__global__ void widen_kernel(const T *in, double *out, std::size_t count, bool absolute) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double v = to_double<T>(in[i]);
    out[i] = absolute ? fabs(v) : v;
  }
}

__device__ void atomic_max_double(double *address, double value) {
  // Non-negative doubles order as their bit patterns do.
  atomicMax(reinterpret_cast<unsigned long long *>(address), __double_as_longlong(value));
}

// The block's share of a comparison, one atomic per field.
__device__ void add_to_tally(DeviceTally *tally, unsigned long long nonfinite, unsigned long long violations,
                             unsigned long long first, double error_sq, double ref_sq, double worst) {
  nonfinite = block_reduce(nonfinite, Sum{});
  violations = block_reduce(violations, Sum{});
  first = block_reduce(first, Min{});
  error_sq = block_reduce(error_sq, Sum{});
  ref_sq = block_reduce(ref_sq, Sum{});
  worst = block_reduce(worst, Max{});
  if (threadIdx.x != 0) return;
  if (nonfinite) atomicAdd(&tally->nonfinite, nonfinite);
  if (violations) atomicAdd(&tally->violations, violations);
  if (first != ~0ULL) atomicMin(&tally->first_violation, first);
  atomicAdd(&tally->error_sq, error_sq);
  atomicAdd(&tally->ref_sq, ref_sq);
  if (worst > 0) atomic_max_double(&tally->worst_ratio, worst);
}

template <typename T>
__global__ void compare_kernel(const T *c, const double *reference, const double *bound,
                               std::size_t count, double tolerance, DeviceTally *tally) {
  double error_sq = 0, ref_sq = 0, worst = 0;
  unsigned long long nonfinite = 0, violations = 0, first = ~0ULL;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double value = to_double<T>(c[i]);
    if (!isfinite(value)) {
      ++nonfinite;
      first = min(first, static_cast<unsigned long long>(i));
      continue;
    }
    const double error = fabs(value - reference[i]);
    const NormwiseTerms terms = scaled_normwise_terms(value, reference[i], bound[i]);
    error_sq += terms.error_sq;
    ref_sq += terms.ref_sq;
    // A zero bound (an all-zero row of A) allows no error but the smallest.
    const double allowed = tolerance * bound[i] + 1e-300;
    if (error > allowed) {
      ++violations;
      first = min(first, static_cast<unsigned long long>(i));
    }
    if (bound[i] > 0) worst = fmax(worst, error / bound[i]);
  }
  add_to_tally(tally, nonfinite, violations, first, error_sq, ref_sq, worst);
}

// One warp per row.
template <typename T>
__global__ void gemv_kernel(const T *matrix, int rows, int cols, const double *x,
                            const double *x_sq, double *y, double *y_sq) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * blockDim.x / 32;
  for (int row = warp; row < rows; row += warps) {
    const T *line = matrix + static_cast<std::size_t>(row) * cols;
    double sum = 0, sum_sq = 0;
    for (int j = lane; j < cols; j += 32) {
      const double v = to_double<T>(line[j]);
      sum += v * x[j];
      sum_sq += v * v * x_sq[j];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
      sum_sq += __shfl_down_sync(0xffffffffu, sum_sq, offset);
    }
    if (lane == 0) {
      y[row] = sum;
      y_sq[row] = sum_sq;
    }
  }
}

// One thread per column: neighbouring threads read neighbouring elements of each row.
template <typename T>
__global__ void column_norms_kernel(const T *matrix, int rows, int cols, double *norm) {
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += gridDim.x * blockDim.x) {
    double sum = 0;
    for (int i = 0; i < rows; ++i) {
      const double v = to_double<T>(matrix[static_cast<std::size_t>(i) * cols + j]);
      sum += v * v;
    }
    norm[j] = sqrt(sum);
  }
}

__global__ void fill_vector_kernel(double *x, double *x_sq, const double *norm, int count, std::uint64_t seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    double v = input_unit(input_mix(seed + static_cast<std::uint64_t>(i)));
    v = v < 0 ? v * 0.75 - 0.25 : v * 0.75 + 0.25;  // every column counts in C x
    if (norm[i] > 0) v /= norm[i];                  // and every column alike, whatever its scale
    x[i] = v;
    x_sq[i] = v * v;
  }
}

__global__ void select_class_kernel(const double *x, const double *x_sq, const int *classes, int target,
                                    double *out, double *out_sq, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const bool in = classes[i] == target;
    out[i] = in ? x[i] : 0.0;
    out_sq[i] = in ? x_sq[i] : 0.0;
  }
}

__global__ void compare_residual_kernel(const double *z, const double *z_sq, const double *w,
                                        int count, double row_bound, DeviceTally *tally,
                                        unsigned long long first_row) {
  double error_sq = 0, ref_sq = 0, worst = 0;
  unsigned long long nonfinite = 0, violations = 0, first = ~0ULL;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    if (!isfinite(w[i])) {
      ++nonfinite;
      first = min(first, first_row + static_cast<unsigned long long>(i));
      continue;
    }
    const double error = fabs(z[i] - w[i]), scale = sqrt(z_sq[i]);
    // A zero row of A makes the scale zero: then only an exact zero passes.
    if (error > row_bound * scale) {
      ++violations;
      first = min(first, first_row + static_cast<unsigned long long>(i));
    }
    if (scale > 0) {
      worst = fmax(worst, error / scale);
      error_sq += (error / scale) * (error / scale);
      ref_sq += 1;
    }
  }
  add_to_tally(tally, nonfinite, violations, first, error_sq, ref_sq, worst);
}

__global__ void canary_kernel(const float *a, const float *b, float *out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = a[i] * b[i] + static_cast<float>(i);
}

template <template <typename> class Launch, typename... Args>
void by_precision(Precision precision, Args &&...args) {
  switch (precision) {
    case Precision::f64: Launch<double>::run(args...); break;
    case Precision::f32: Launch<float>::run(args...); break;
    case Precision::f16: Launch<__half>::run(args...); break;
    case Precision::bf16: Launch<__nv_bfloat16>::run(args...); break;
  }
}

template <typename T> struct FillOperand {
  static void run(void *data, int rows, int cols, std::uint64_t seed, Operand which, bool patterned) {
    fill_operand_kernel<T><<<blocks_for(static_cast<std::size_t>(rows) * cols), kThreads>>>(
        static_cast<T *>(data), rows, cols, seed, which, patterned);
  }
};
template <typename T> struct FillNan {
  static void run(void *data, std::size_t count) {
    fill_nan_kernel<T><<<blocks_for(count), kThreads>>>(static_cast<T *>(data), count);
  }
};
template <typename T> struct Transpose {
  static void run(const void *in, void *out, int rows, int cols, int count) {
    transpose_kernel<T><<<blocks_for(static_cast<std::size_t>(rows) * cols * count), kThreads>>>(
        static_cast<const T *>(in), static_cast<T *>(out), rows, cols, count);
  }
};
template <typename T> struct Widen {
  static void run(const void *in, double *out, std::size_t count, bool absolute) {
    widen_kernel<T><<<blocks_for(count), kThreads>>>(static_cast<const T *>(in), out, count, absolute);
  }
};
template <typename T> struct Compare {
  static void run(const void *c, const double *reference, const double *bound, std::size_t count,
                  double tolerance, DeviceTally *tally) {
    compare_kernel<T><<<reduction_blocks(count), kThreads>>>(static_cast<const T *>(c), reference, bound,
                                                       count, tolerance, tally);
  }
};
template <typename T> struct Gemv {
  static void run(const void *matrix, int rows, int cols, const double *x, const double *x_sq,
                  double *y, double *y_sq) {
    gemv_kernel<T><<<blocks_for(static_cast<std::size_t>(rows) * 32), kThreads>>>(
        static_cast<const T *>(matrix), rows, cols, x, x_sq, y, y_sq);
  }
};
template <typename T> struct ColumnNorms {
  static void run(const void *matrix, int rows, int cols, double *norm) {
    column_norms_kernel<T><<<blocks_for(static_cast<std::size_t>(cols)), kThreads>>>(
        static_cast<const T *>(matrix), rows, cols, norm);
  }
};

}  // namespace

void fill_operand(Precision precision, void *data, int rows, int cols, std::uint64_t seed, Operand which,
                  bool patterned) {
  by_precision<FillOperand>(precision, data, rows, cols, seed, which, patterned);
  cuda_check_launch("fill_operand");
}

void fill_nan(Precision precision, void *data, std::size_t count) {
  by_precision<FillNan>(precision, data, count);
  cuda_check_launch("fill_nan");
}

void transpose(Precision precision, const void *in, void *out, int rows, int cols, int count) {
  by_precision<Transpose>(precision, in, out, rows, cols, count);
  cuda_check_launch("transpose");
}

void fill_guard(void *data, std::size_t bytes, std::uint64_t seed) {
  fill_guard_kernel<<<blocks_for(bytes), kThreads>>>(static_cast<unsigned char *>(data), bytes, seed);
  cuda_check_launch("fill_guard");
}

void count_guard_mismatches(const void *data, std::size_t bytes, std::uint64_t seed,
                            unsigned long long *mismatches) {
  count_guard_kernel<<<reduction_blocks(bytes), kThreads>>>(static_cast<const unsigned char *>(data), bytes,
                                                      seed, mismatches);
  cuda_check_launch("count_guard_mismatches");
}

void checksum(const void *data, std::size_t bytes, unsigned long long *sum) {
  cuda_call(cudaMemsetAsync(sum, 0, sizeof *sum), "checksum reset");
  checksum_kernel<<<reduction_blocks(bytes / 8 + 1), kThreads>>>(static_cast<const unsigned char *>(data),
                                                           bytes, sum);
  cuda_check_launch("checksum");
}

void widen(Precision precision, const void *in, double *out, std::size_t count, bool absolute) {
  by_precision<Widen>(precision, in, out, count, absolute);
  cuda_check_launch("widen");
}

void compare_output(Precision precision, const void *c, const double *reference, const double *bound,
                    std::size_t count, double element_tolerance, DeviceTally *tally) {
  by_precision<Compare>(precision, c, reference, bound, count, element_tolerance, tally);
  cuda_check_launch("compare_output");
}

void gemv(Precision precision, const void *matrix, int rows, int cols, const double *x,
          const double *x_sq, double *y, double *y_sq) {
  by_precision<Gemv>(precision, matrix, rows, cols, x, x_sq, y, y_sq);
  cuda_check_launch("gemv");
}

void column_norms(Precision precision, const void *matrix, int rows, int cols, double *norm) {
  by_precision<ColumnNorms>(precision, matrix, rows, cols, norm);
  cuda_check_launch("column_norms");
}

void fill_vector(double *x, double *x_sq, const double *norm, int count, std::uint64_t seed) {
  fill_vector_kernel<<<blocks_for(static_cast<std::size_t>(count)), kThreads>>>(x, x_sq, norm, count, seed);
  cuda_check_launch("fill_vector");
}

void select_class(const double *x, const double *x_sq, const int *classes, int target, double *out,
                  double *out_sq, int count) {
  select_class_kernel<<<blocks_for(static_cast<std::size_t>(count)), kThreads>>>(x, x_sq, classes, target, out,
                                                                                out_sq, count);
  cuda_check_launch("select_class");
}

void compare_residual(const double *z, const double *z_sq, const double *w, int count,
                      double row_bound, DeviceTally *tally, unsigned long long first_row) {
  compare_residual_kernel<<<blocks_for(static_cast<std::size_t>(count)), kThreads>>>(z, z_sq, w, count,
                                                                                    row_bound, tally, first_row);
  cuda_check_launch("compare_residual");
}

void canary(const float *a, const float *b, float *out, int count) {
  canary_kernel<<<blocks_for(static_cast<std::size_t>(count)), kThreads>>>(a, b, out, count);
  cuda_check_launch("canary");
}

}  // namespace hpcreward::gpu
