#pragma once
// A benchmark problem: precision, language, nominal shape, odd check shapes, tolerance. Which
// problems a run knows is configuration: common/problem_catalog.hpp.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

// f16 and bf16 are CUDA only: __half or __nv_bfloat16 operands and output, fp32
// accumulation expected.
enum class Precision { f64, f32, f16, bf16 };
// c: CPU ranks compile with gcc; cuda: GPU ranks compile with nvcc (device pointers).
enum class Language { c, cuda };

struct Shape {
  int m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * m * n * k; }
  bool operator==(const Shape &) const = default;
};

struct Problem {
  std::string id;
  Precision precision = Precision::f64;
  Language language = Language::c;
  Shape nominal;
  // Odd sizes that catch code hard-wired to the nominal shape; each is fully verified.
  std::vector<Shape> check_shapes;
  // C problems: bound on ||C - C_ref||_F / (||A||_F ||B||_F); a correct GEMM sits near
  // k * epsilon. CUDA problems: bound on ||C - C_ref||_F / ||C_ref||_F (zero-mean inputs, so
  // this separates fp32 from fp16 accumulation and TF32 from bf16 operands).
  double tolerance = 0;
  // CUDA problems only (0 elsewhere): every element must satisfy
  // |C - C_ref|_ij <= element_tolerance * (|A| |B|)_ij, which a normwise bound alone misses
  // for a few wrong elements of a large C.
  double element_tolerance = 0;
  std::string description;  // free text from the catalog, for people and prompts
};

std::string_view to_string(Precision precision);
std::optional<Precision> parse_precision(std::string_view text);
std::string element_type(Precision precision);  // "double" / "float" / "__half" / "__nv_bfloat16", as the ABI spells it
std::size_t element_bytes(Precision precision);
std::string_view to_string(Language language);  // "c" / "cuda"
std::optional<Language> parse_language(std::string_view text);
std::string to_string(const Shape &shape);        // "256x256x256" (m x n x k)
// The candidate's contract for `problem`, in words a reader (or a model) follows: the entry
// point's signature with the problem's element type, the layouts, whose pointers they are.
std::string problem_abi(const Problem &problem);
std::optional<Shape> parse_shape(std::string_view text);

}  // namespace hpcreward
