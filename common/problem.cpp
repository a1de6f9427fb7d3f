#include "common/problem.hpp"

#include <charconv>

namespace hpcreward {

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::f64: return "f64";
    case Precision::f32: return "f32";
    case Precision::f16: return "f16";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "f64") return Precision::f64;
  if (text == "f32") return Precision::f32;
  if (text == "f16") return Precision::f16;
  if (text == "bf16") return Precision::bf16;
  return std::nullopt;
}

std::string element_type(Precision precision) {
  switch (precision) {
    case Precision::f64: return "double";
    case Precision::f32: return "float";
    case Precision::f16: return "__half";
    case Precision::bf16: return "__nv_bfloat16";
  }
  return "?";
}

std::size_t element_bytes(Precision precision) {
  switch (precision) {
    case Precision::f64: return 8;
    case Precision::f32: return 4;
    case Precision::f16:
    case Precision::bf16: return 2;
  }
  return 0;
}

std::string_view to_string(Language language) { return language == Language::c ? "c" : "cuda"; }

std::optional<Language> parse_language(std::string_view text) {
  if (text == "c") return Language::c;
  if (text == "cuda") return Language::cuda;
  return std::nullopt;
}

std::string to_string(const Shape &shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

std::string problem_abi(const Problem &problem) {
  const std::string t = element_type(problem.precision);
  const bool cuda = problem.language == Language::cuda;
  std::string abi = std::string(cuda ? "extern \"C\" " : "") + "void matmul(int m, int n, int k, const " + t +
                    " *A, const " + t + " *B, " + t + " *C): C = A B, row-major, A m x k, B k x n, C m x n " +
                    "(overwritten; it holds NaN on entry); " +
                    (cuda ? "device pointers, any kernels on any streams, the whole device synchronized after the call"
                          : "host pointers");
  if (problem.precision == Precision::f16 || problem.precision == Precision::bf16) abi += "; fp32 accumulation";
  if (problem.precision == Precision::f32 && cuda) abi += "; TF32 tensor cores allowed";
  return abi;
}

std::optional<Shape> parse_shape(std::string_view text) {
  int values[3];
  const char *cursor = text.data();
  const char *end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, error] = std::from_chars(cursor, end, values[i]);
    if (error != std::errc() || values[i] <= 0) return std::nullopt;
    cursor = next;
    if (i < 2) {
      if (cursor == end || *cursor != 'x') return std::nullopt;
      ++cursor;
    }
  }
  if (cursor != end) return std::nullopt;
  return Shape{values[0], values[1], values[2]};
}

}  // namespace hpcreward
