// CUDA f16 products computed here the way kernels of each accumulation compute them, with
// every fp16 rounding simulated exactly, and the figures of the checks that judge them: the
// untimed scaled normwise error and per-element error (scaled_normwise.hpp, the harness's
// comparison with its fp64 reference) and the timed randomized residual (gemm_check.hpp
// row_residual, as the device computes it). For accumulation_test.cpp, whose DISABLED_ table
// is docs/reward-integrity.md's "Accumulation precision". Deterministic: the inputs are the
// harness's own (input_values.hpp, uniform in [-1, 1) rounded to __half) from a fixed seed.
//
// The kernels (an fp16 accumulator follows an HMMA with fp16 accumulation: the products of one
// mma step of k = 16 summed exactly, added to the accumulator, the sum rounded once):
//   fp32 SIMT      a float sum product by product (round to nearest), C rounded to __half
//   fp32 TC        an fp32 accumulator fed 16 exact products at a time, each add truncated
//                  (tensor cores' fp32 accumulation as reported), C rounded to nearest: cuBLAS
//   fp32 TC, rz    the same with C rounded toward zero (__float2half_rz)
//   fp16 acc       an fp16 accumulator, rounded to nearest after every 16 products
//   fp16 acc k8    the same, rounded after every 8 (an mma that rounds between its halves)
//   fp16 acc rz    the same as fp16 acc, truncated instead of rounded
//   split-k fp16   k in kSplitParts parts, each an fp16 acc, their fp16 partial sums added in fp16
//   e4m3, e5m2     operands rounded to fp8 (3 or 2 mantissa bits), fp32 accumulation, C rounded
//   trunc7         operands truncated to 7 mantissa bits (bf16's), fp32 accumulation, C rounded
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_node/cpu/gemm_check.hpp"
#include "bench_node/measure/input_values.hpp"
#include "bench_node/measure/random_fill.hpp"
#include "bench_node/measure/residual_bound.hpp"
#include "bench_node/measure/scaled_normwise.hpp"
#include "common/problem.hpp"

namespace hpcreward::test {

// Round to a binary format of `bits` explicit mantissa bits whose smallest normal is
// 2^min_exponent (subnormals below, in steps of 2^(min_exponent - bits)), to nearest (ties to
// even) or toward zero. No overflow: every value simulated here is far below each format's top.
inline double round_to_format(double value, int bits, int min_exponent, bool toward_zero = false) {
  if (value == 0 || !std::isfinite(value)) return value;
  const int exponent = std::max(std::ilogb(value), min_exponent);
  const double ulp = std::ldexp(1.0, exponent - bits);
  const double steps = value / ulp;  // exact: a power-of-two scaling
  return (toward_zero ? std::trunc(steps) : std::nearbyint(steps)) * ulp;
}
inline double half_rn(double value) { return round_to_format(value, 10, -14); }
inline double half_rz(double value) { return round_to_format(value, 10, -14, true); }
inline double e4m3(double value) { return round_to_format(value, 3, -6); }
inline double e5m2(double value) { return round_to_format(value, 2, -14); }
inline double trunc7(double value) { return round_to_format(value, 7, -126, true); }
// An fp32 add truncated toward zero (a tensor core's fp32 accumulation).
inline double float_rz(double value) { return round_to_format(value, 23, -126, true); }

enum class Kernel {
  fp32_simt,
  fp32_tc,
  fp32_tc_rz,
  fp16_acc,
  fp16_acc_k8,
  fp16_acc_rz,
  split_k_fp16,
  e4m3,
  e5m2,
  trunc7,
};
inline constexpr Kernel kKernels[] = {Kernel::fp32_simt,   Kernel::fp32_tc,      Kernel::fp32_tc_rz, Kernel::fp16_acc,
                                      Kernel::fp16_acc_k8, Kernel::fp16_acc_rz,  Kernel::split_k_fp16,
                                      Kernel::e4m3,        Kernel::e5m2,         Kernel::trunc7};
inline constexpr int kKernelCount = sizeof kKernels / sizeof kKernels[0];
inline constexpr int kSplitParts = 8;

inline const char *kernel_name(Kernel kernel) {
  switch (kernel) {
    case Kernel::fp32_simt: return "fp32 SIMT";
    case Kernel::fp32_tc: return "fp32 TC (cuBLAS)";
    case Kernel::fp32_tc_rz: return "fp32 TC, C toward zero";
    case Kernel::fp16_acc: return "fp16 acc (HMMA)";
    case Kernel::fp16_acc_k8: return "fp16 acc every 8";
    case Kernel::fp16_acc_rz: return "fp16 acc truncated";
    case Kernel::split_k_fp16: return "split-k 8, fp16 partials";
    case Kernel::e4m3: return "e4m3 operands";
    case Kernel::e5m2: return "e5m2 operands";
    case Kernel::trunc7: return "operands cut to 7 bits";
  }
  return "?";
}

// What each check reads of one product.
struct CheckFigures {
  double scaled = 0;    // the untimed scaled normwise error (against Problem::tolerance)
  double element = 0;   // the largest |C - C_ref| / (|A||B|) (against Problem::element_tolerance)
  RowResidual residual;  // the timed check's figures, bound.row applied
};

// `rows` x `cols` of the product of a `full` problem (its first rows and columns, drawn as the
// harness draws the full operands from `seed`), at the full k. A row's residual ratio and an
// element's error do not depend on how many rows and columns there are; the bounds that do
// (the normwise bound's pairs, the largest of many) are the caller's, at the full shape.
class SimulatedF16 {
 public:
  SimulatedF16(const Shape &full, int rows, int cols, std::uint64_t seed = 20261205)
      : full_(full), shape_{std::min(rows, full.m), std::min(cols, full.n), full.k} {
    const int m = shape_.m, n = shape_.n, k = shape_.k;
    a_.resize(static_cast<std::size_t>(m) * k);
    b_.resize(static_cast<std::size_t>(k) * n);
    int exponent = 0;
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p)
        a_[static_cast<std::size_t>(i) * k + p] = half_rn(
            input_mantissa(seed, Operand::a, k, static_cast<std::size_t>(i) * k + p, false, &exponent));
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        b_[static_cast<std::size_t>(p) * n + j] = half_rn(
            input_mantissa(seed, Operand::b, full.n, static_cast<std::size_t>(p) * full.n + j, false, &exponent));
    weights_.resize(n);
    Rng secret(seed ^ 0x5eed);
    for (double &w : weights_) {
      const double u = secret.uniform();
      w = u < 0 ? u * 0.75 - 0.25 : u * 0.75 + 0.25;
    }
    compute();
  }

  const Shape &shape() const { return shape_; }
  const Shape &full() const { return full_; }
  const std::vector<float> &output(Kernel kernel) const { return c_[static_cast<int>(kernel)]; }
  const std::vector<double> &reference() const { return exact_; }
  const std::vector<double> &scale() const { return scale_; }  // (|A||B|)_ij

  // Every check's figures for C (of this shape); `bound` is the timed check's at the full shape.
  CheckFigures figures(const std::vector<float> &c, const ResidualBound &bound) const {
    CheckFigures out;
    NormwiseTerms sum;
    for (std::size_t e = 0; e < c.size(); ++e) {
      const NormwiseTerms terms = scaled_normwise_terms(c[e], exact_[e], scale_[e]);
      sum.error_sq += terms.error_sq;
      sum.ref_sq += terms.ref_sq;
      if (scale_[e] > 0) out.element = std::max(out.element, std::fabs(c[e] - exact_[e]) / scale_[e]);
    }
    out.scaled = sum.ref_sq > 0 ? std::sqrt(sum.error_sq / sum.ref_sq) : 0;
    std::vector<float> a(a_.begin(), a_.end()), b(b_.begin(), b_.end());  // every value is an fp16: exact
    out.residual = row_residual(shape_, a.data(), b.data(), c.data(), std::span<const double>(weights_), bound);
    return out;
  }
  CheckFigures figures(Kernel kernel, const ResidualBound &bound) const { return figures(output(kernel), bound); }

 private:
  void compute() {
    const int m = shape_.m, n = shape_.n, k = shape_.k;
    const int part = ((k + kSplitParts - 1) / kSplitParts + 15) / 16 * 16;  // split-k: parts of whole mma steps
    for (auto &c : c_) c.assign(static_cast<std::size_t>(m) * n, 0);
    exact_.assign(static_cast<std::size_t>(m) * n, 0);
    scale_.assign(static_cast<std::size_t>(m) * n, 0);
    // Per column of the row being computed: the running sums of each kernel.
    std::vector<double> chunk8(n), chunk16(n), exact(n), scale(n), tc(n), acc16(n), acc16_8(n), acc16_rz(n),
        part_acc(n), split(n), fp8a(n), fp8b(n), cut(n);
    std::vector<float> simt(n);
    std::vector<double> b4(b_.size()), b5(b_.size()), b7(b_.size());  // B as each lower precision reads it
    for (std::size_t e = 0; e < b_.size(); ++e) b4[e] = e4m3(b_[e]), b5[e] = e5m2(b_[e]), b7[e] = trunc7(b_[e]);
    for (int i = 0; i < m; ++i) {
      for (std::vector<double> *v : {&chunk8, &chunk16, &exact, &scale, &tc, &acc16, &acc16_8, &acc16_rz, &part_acc,
                                     &split, &fp8a, &fp8b, &cut})
        std::fill(v->begin(), v->end(), 0.0);
      std::fill(simt.begin(), simt.end(), 0.0f);
      const double *a_row = &a_[static_cast<std::size_t>(i) * k];
      for (int p = 0; p < k; ++p) {
        const double a = a_row[p], a4 = e4m3(a), a5 = e5m2(a), a7 = trunc7(a);
        const std::size_t row = static_cast<std::size_t>(p) * n;
        const double *b_row = &b_[row], *b4_row = &b4[row], *b5_row = &b5[row], *b7_row = &b7[row];
        for (int j = 0; j < n; ++j) {
          const double product = a * b_row[j];  // exact: two fp16 significands
          chunk8[j] += product;                 // exact: eight such products
          scale[j] += std::fabs(product);
          simt[j] += static_cast<float>(product);
          fp8a[j] += a4 * b4_row[j];
          fp8b[j] += a5 * b5_row[j];
          cut[j] += a7 * b7_row[j];
        }
        const bool end8 = p % 8 == 7 || p == k - 1, end16 = p % 16 == 15 || p == k - 1;
        const bool end_part = (p + 1) % part == 0 || p == k - 1;
        if (!end8) continue;
        for (int j = 0; j < n; ++j) {
          acc16_8[j] = half_rn(acc16_8[j] + chunk8[j]);
          chunk16[j] += chunk8[j];
          chunk8[j] = 0;
          if (!end16) continue;
          exact[j] += chunk16[j];
          tc[j] = float_rz(tc[j] + chunk16[j]);
          acc16[j] = half_rn(acc16[j] + chunk16[j]);
          acc16_rz[j] = half_rz(acc16_rz[j] + chunk16[j]);
          part_acc[j] = half_rn(part_acc[j] + chunk16[j]);
          chunk16[j] = 0;
          if (end_part) split[j] = half_rn(split[j] + part_acc[j]), part_acc[j] = 0;
        }
      }
      for (int j = 0; j < n; ++j) {
        const std::size_t e = static_cast<std::size_t>(i) * n + j;
        exact_[e] = exact[j];
        scale_[e] = scale[j];
        auto set = [&](Kernel kernel, double value) { c_[static_cast<int>(kernel)][e] = static_cast<float>(value); };
        set(Kernel::fp32_simt, half_rn(simt[j]));
        set(Kernel::fp32_tc, half_rn(tc[j]));
        set(Kernel::fp32_tc_rz, half_rz(tc[j]));
        set(Kernel::fp16_acc, acc16[j]);
        set(Kernel::fp16_acc_k8, acc16_8[j]);
        set(Kernel::fp16_acc_rz, acc16_rz[j]);
        set(Kernel::split_k_fp16, split[j]);
        set(Kernel::e4m3, half_rn(fp8a[j]));
        set(Kernel::e5m2, half_rn(fp8b[j]));
        set(Kernel::trunc7, half_rn(cut[j]));
      }
    }
  }

  Shape full_, shape_;
  std::vector<double> a_, b_, weights_, exact_, scale_;
  std::vector<float> c_[kKernelCount];
};

}  // namespace hpcreward::test
