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
// accumulation expected (f16: unless the problem allows fp16 accumulation, Accumulation).
enum class Precision { f64, f32, f16, bf16 };
// The accumulation a CUDA f16 problem expects: f32 (the default: an fp16 accumulator fails its
// checks from k of about 1,000) or f16 (an fp16 accumulator allowed, e.g. HMMA with fp16
// accumulators, CUDA-L2's F16F16F16F16; fp32 accumulation passes as well), each with
// tolerances and a timed residual bound of its own (problem_catalog.cpp, residual_bound.hpp).
// Every other problem accumulates at its precision (f64) or in fp32 (f32, bf16): f32 here.
enum class Accumulation { f32, f16 };
// c: CPU ranks compile with gcc; cuda: GPU ranks compile with nvcc (device pointers).
enum class Language { c, cuda };

struct Shape {
  int m = 0, n = 0, k = 0;
  int batch = 1;  // products of m x n x k, one after another in memory (Layout::batched)
  double flops() const { return 2.0 * batch * m * n * k; }
  bool operator==(const Shape &) const = default;
};

// How a problem's operands are laid out for the candidate, and so its signature
// (problem_abi). Every check reads the operands through the same layout; the product is
// always C = op(A) op(B) with C row-major m x n.
struct Layout {
  bool transpose_a = false;  // A stored as its transpose: k x m row-major (A^T given)
  bool transpose_b = false;  // B stored as its transpose: n x k row-major (B^T given)
  // matmul(int batch, int m, int n, int k, A, B, C): `batch` products, operand b of each at
  // b * (its size) elements from the start (strided, no gaps).
  bool batched = false;
  bool operator==(const Layout &) const = default;
};

struct Problem {
  std::string id;
  Precision precision = Precision::f64;
  Language language = Language::c;
  Layout layout;
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
  Accumulation accumulation = Accumulation::f32;  // Accumulation::f16 only on CUDA f16 problems
  std::string description;  // free text from the catalog, for people and prompts
};

// Whether two problems are scored alike: everything but the id and the description (the
// accumulation included).
bool same_definition(const Problem &a, const Problem &b);

std::string_view to_string(Precision precision);
std::optional<Precision> parse_precision(std::string_view text);
std::string element_type(Precision precision);  // "double" / "float" / "__half" / "__nv_bfloat16", as the ABI spells it
std::size_t element_bytes(Precision precision);
std::string_view to_string(Language language);  // "c" / "cuda"
std::string_view to_string(Accumulation accumulation);  // "f32" / "f16"
std::optional<Accumulation> parse_accumulation(std::string_view text);
std::optional<Language> parse_language(std::string_view text);
// "256x256x256" (m x n x k); "128*512x2048x1024" with a batch of 128.
std::string to_string(const Shape &shape);
// "nn", "tn", "nt", "tt" (BLAS's letters: t, the operand is stored transposed), then
// "-batched" where it is.
std::string to_string(const Layout &layout);
std::optional<Layout> parse_layout(std::string_view text);
// Elements of one operand of one of a shape's products (times shape.batch for all of them).
inline std::size_t a_elements(const Shape &s) { return static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.k); }
inline std::size_t b_elements(const Shape &s) { return static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.n); }
inline std::size_t c_elements(const Shape &s) { return static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n); }
// The candidate's contract for `problem`, in words a reader (or a model) follows: the entry
// point's signature with the problem's element type, the layouts, whose pointers they are.
std::string problem_abi(const Problem &problem);
// Its entry point as C declares it: "void matmul(int m, int n, int k, const double *A, const
// double *B, double *C)", with `int batch` first for a batched problem.
std::string entry_point_signature(const Problem &problem);
std::optional<Shape> parse_shape(std::string_view text);
// "row i", or "product b, row i" in a batch: `row` counts C's rows from the first product's.
// "C[i][j]", or "C[b][i][j]" in a batch of products; `index` counts C's elements from the first
// product's.
std::string element_name(std::size_t index, const Shape &shape);
std::string row_name(std::size_t row, const Shape &shape);

}  // namespace hpcreward
