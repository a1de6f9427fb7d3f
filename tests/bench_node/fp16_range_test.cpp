// CUDA sgemm's inputs (input_values.hpp) against the fp16 shortcut: fp16 operands on tensor
// cores (fp32 accumulation) after power-of-two scaling of A's rows, B's columns and the inner
// dimension, chosen with the pattern's secret factors known (an upper bound on what an
// attacker estimating them from the data achieves). With one scaling (a diagonal rescaling)
// and with rows clustered into a few classes by x_i, each class with its own inner scaling and
// its own fp16 copy of B (no more tensor-core work, one conversion of B per class), the timed
// calls' residual check and the untimed scaled check must fail it; honest fp32 and TF32
// (rounded, truncated, split-k) must pass both. The figures go to stdout for
// docs/reward-integrity.md; DISABLED_ tests run the larger shapes by hand.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/measure/scaled_normwise.hpp"
#include "common/problem_catalog.hpp"
#include "tests/bench_node/simulated_products.hpp"

namespace hpcreward {
namespace {

using test::chop_to_float;
using test::HarnessInputs;
using test::Product;
using test::round_mantissa;
using test::to_fp16;

float truncate_mantissa(float value, int bits) {
  std::uint32_t word;
  std::memcpy(&word, &value, sizeof word);
  word &= ~((1u << (23 - bits)) - 1);
  std::memcpy(&value, &word, sizeof word);
  return value;
}

struct Figures {
  double residual = 0, worst = 0;  // normwise and worst (row, class) residual, in units of eps
  double scaled = 0;               // the untimed scaled normwise error, in units of its tolerance
  bool timed_ok = false, untimed_ok = false;
};

class Sgemm {
 public:
  Sgemm(Shape shape, std::uint64_t seed) : p_(shape, HarnessInputs{}, seed), s_(shape) {
    bound_ = residual_bound(Precision::f32, Language::cuda, s_, 0x1p-53);
    const Problem &problem = *find_problem("cuda-sgemm-1024");
    tolerance_ = problem.tolerance;
    element_tolerance_ = problem.element_tolerance;
  }
  const Shape &shape() const { return s_; }

  // fp32 accumulation (sequential, or in `splits` parts added at the end) of operands as
  // `operand` leaves them.
  std::vector<float> dot(float (*operand)(float), int splits = 1, bool chop = false) const {
    const std::vector<float> a = map(p_.a, operand), bt = transposed(map(p_.b, operand));
    return p_.compute([&](int i, int j) {
      float total = 0;
      const int part = (s_.k + splits - 1) / splits;
      for (int q0 = 0; q0 < s_.k; q0 += part) {
        float sum = 0;
        for (int q = q0; q < std::min(s_.k, q0 + part); ++q) {
          const float product = a[i * s_.k + q] * bt[j * s_.k + q];
          sum = chop ? chop_to_float(static_cast<double>(sum) + product) : sum + product;
        }
        total += sum;
      }
      return total;
    });
  }

  // fp16 operands, fp32 accumulation; rows in `classes` classes of equal width in x, each with
  // the inner scaling that centres its rows, then every row and column of B scaled so its
  // largest element sits in fp16's top binade.
  std::vector<float> fp16_attack(int classes) const {
    const ExponentPattern pattern{p_.pattern_seed};
    std::vector<float> c(static_cast<std::size_t>(s_.m) * s_.n);
    for (int g = 0; g < classes; ++g) {
      const double centre = (g + 0.5) / classes;
      std::vector<int> inner(s_.k);
      for (int q = 0; q < s_.k; ++q) inner[q] = ExponentPattern::rounded(kExponentSpan * centre * pattern.inner(q));
      std::vector<float> hb(static_cast<std::size_t>(s_.n) * s_.k);  // transposed
      std::vector<int> col_scale(s_.n);
      for (int j = 0; j < s_.n; ++j) {
        int top = -10000;
        for (int q = 0; q < s_.k; ++q)
          if (p_.b[q * s_.n + j] != 0) top = std::max(top, std::ilogb(p_.b[q * s_.n + j]) + inner[q]);
        col_scale[j] = 15 - top;
        for (int q = 0; q < s_.k; ++q)
          hb[j * s_.k + q] = to_fp16(std::ldexp(static_cast<double>(p_.b[q * s_.n + j]), inner[q] + col_scale[j]));
      }
      for (int i = 0; i < s_.m; ++i) {
        if (std::min(classes - 1, static_cast<int>(pattern.row(i) * classes)) != g) continue;
        int top = -10000;
        for (int q = 0; q < s_.k; ++q)
          if (p_.a[i * s_.k + q] != 0) top = std::max(top, std::ilogb(p_.a[i * s_.k + q]) - inner[q]);
        const int row_scale = 15 - top;
        std::vector<float> ha(s_.k);
        for (int q = 0; q < s_.k; ++q)
          ha[q] = to_fp16(std::ldexp(static_cast<double>(p_.a[i * s_.k + q]), row_scale - inner[q]));
        for (int j = 0; j < s_.n; ++j) {
          float sum = 0;
          for (int q = 0; q < s_.k; ++q) sum += ha[q] * hb[j * s_.k + q];
          c[i * s_.n + j] = static_cast<float>(std::ldexp(static_cast<double>(sum), -row_scale - col_scale[j]));
        }
      }
    }
    return c;
  }

  Figures figures(const std::vector<float> &c, const char *name) const {
    Figures f;
    const RowResidual r = p_.check(c, bound_);
    f.timed_ok = r.ok(bound_);
    f.residual = r.normwise / bound_.error_scale;
    f.worst = r.worst_ratio / bound_.error_scale;
    NormwiseTerms terms;
    bool elements_ok = true;
    for (int i = 0; i < s_.m; ++i)
      for (int j = 0; j < s_.n; ++j) {
        double scale = 0;
        for (int q = 0; q < s_.k; ++q) scale += std::fabs(static_cast<double>(p_.a[i * s_.k + q]) * p_.b[q * s_.n + j]);
        const double reference = p_.exact(i, j), value = c[i * s_.n + j];
        const NormwiseTerms t = scaled_normwise_terms(value, reference, scale);
        terms.error_sq += t.error_sq;
        terms.ref_sq += t.ref_sq;
        elements_ok = elements_ok && std::fabs(value - reference) <= element_tolerance_ * scale;
      }
    f.scaled = std::sqrt(terms.error_sq / terms.ref_sq) / tolerance_;
    f.untimed_ok = elements_ok && f.scaled <= 1;
    if (*name)  // unnamed: not printed
      std::printf("%-28s %s  residual %8.3g eps, worst (row, class) %8.3g eps (bound %g), %zu rows failing;"
                " scaled %8.3g of tolerance%s\n",
                name, to_string(s_).c_str(), f.residual, f.worst, kResidualRowFactor, r.failing_rows, f.scaled,
                elements_ok ? "" : ", elements beyond");
    return f;
  }

 private:
  static std::vector<float> map(const std::vector<float> &v, float (*operand)(float)) {
    std::vector<float> out(v.size());
    std::transform(v.begin(), v.end(), out.begin(), operand);
    return out;
  }
  std::vector<float> transposed(const std::vector<float> &b) const {
    std::vector<float> t(b.size());
    for (int q = 0; q < s_.k; ++q)
      for (int j = 0; j < s_.n; ++j) t[j * s_.k + q] = b[q * s_.n + j];
    return t;
  }

  Product<float> p_;
  Shape s_;
  ResidualBound bound_;
  double tolerance_ = 0, element_tolerance_ = 0;
};

float fp32(float v) { return v; }
float tf32(float v) { return round_mantissa(v, 10); }
float tf32_truncated(float v) { return truncate_mantissa(v, 10); }
float bf16(float v) { return round_mantissa(v, 7); }

void expect_honest(const Figures &f, double margin = 2) {
  EXPECT_TRUE(f.timed_ok);
  EXPECT_TRUE(f.untimed_ok);
  EXPECT_LT(f.residual, 1 / margin);
  EXPECT_LT(f.worst, kResidualRowFactor / margin);
  EXPECT_LT(f.scaled, 1 / margin);
}

void honest_and_dishonest(Shape shape, std::uint64_t seed, int classes_caught) {
  const Sgemm s(shape, seed);
  expect_honest(s.figures(s.dot(fp32), "fp32"));
  expect_honest(s.figures(s.dot(tf32), "TF32 rounded"));
  expect_honest(s.figures(s.dot(tf32_truncated), "TF32 truncated"), 1.4);
  expect_honest(s.figures(s.dot(tf32, 8), "TF32, split-k 8"));
  expect_honest(s.figures(s.dot(tf32_truncated, 1, true), "TF32 trunc., fp32 chopped"), 1.4);
  const Figures b = s.figures(s.dot(bf16), "bf16");
  EXPECT_FALSE(b.timed_ok);
  EXPECT_FALSE(b.untimed_ok);
  for (int classes = 1; classes <= classes_caught; ++classes) {
    const std::string name = "fp16, " + std::to_string(classes) + " row class" + (classes > 1 ? "es" : "");
    const Figures f = s.figures(s.fp16_attack(classes), name.c_str());
    EXPECT_FALSE(f.timed_ok) << name;
    EXPECT_FALSE(f.untimed_ok) << name;
  }
}

TEST(Fp16Range, HonestPassesFp16AndBf16FailAt64x512x1024) { honest_and_dishonest({64, 512, 1024}, 1, 2); }

// The bound docs/reward-integrity.md states: with three row classes, each scaled on its own,
// fp16 passes both checks (two are caught). Should the inputs ever catch that attacker too,
// this fails, and the stated bound must change with it.
TEST(Fp16Range, ThreeRowClassesPassAt64x1024x1024) {
  const Sgemm s({64, 1024, 1024}, 2);
  for (int classes = 1; classes <= 3; ++classes) {
    const std::string name = "fp16, " + std::to_string(classes) + " row classes";
    const Figures f = s.figures(s.fp16_attack(classes), name.c_str());
    EXPECT_EQ(f.timed_ok, classes == 3) << name;
    EXPECT_EQ(f.untimed_ok, classes == 3) << name;
  }
}

// Truncated TF32 at k = 4096 on the inputs that pushed it over the bound when one or two rows
// of large scale decided the normwise figure (seed 2: 1.61 eps); weighed per (row, class) it
// reads about 0.55 eps on every seed tried, bf16 about 1.7.
TEST(Fp16Range, TruncatedTf32PassesAndBf16FailsAt16x4096x4096) {
  const Sgemm s({16, 4096, 4096}, 2);
  expect_honest(s.figures(s.dot(tf32_truncated), "TF32 truncated"), 1.4);
  const Figures b = s.figures(s.dot(bf16), "bf16");
  EXPECT_FALSE(b.timed_ok);
  EXPECT_GT(b.residual, 1.3);
}

TEST(Fp16Range, DISABLED_HonestAndDishonestAt4096) { honest_and_dishonest({16, 4096, 4096}, 3, 2); }

// By hand: HPCREWARD_SWEEP_ROWS=256 HPCREWARD_SWEEP_SEEDS=6 prints truncated TF32 and bf16 at
// rows x 4096 x 4096 over seeds 1..n, to see how the normwise figure spreads with the rows.
TEST(Fp16Range, DISABLED_TruncatedTf32AndBf16Sweep) {
  const char *rows = std::getenv("HPCREWARD_SWEEP_ROWS"), *seeds = std::getenv("HPCREWARD_SWEEP_SEEDS");
  const int m = rows ? std::atoi(rows) : 16, n = seeds ? std::atoi(seeds) : 6;
  for (int seed = 1; seed <= n; ++seed) {
    const Sgemm s({m, 4096, 4096}, seed);
    std::printf("seed %d\n", seed);
    s.figures(s.dot(tf32), "TF32 rounded");
    s.figures(s.dot(tf32_truncated), "TF32 truncated");
    s.figures(s.dot(bf16), "bf16");
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace hpcreward
