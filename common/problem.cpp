#include "common/problem.hpp"

#include <charconv>

namespace hpcreward {

bool same_definition(const Problem &a, const Problem &b) {
  return a.precision == b.precision && a.language == b.language && a.layout == b.layout && a.nominal == b.nominal &&
         a.check_shapes == b.check_shapes && a.tolerance == b.tolerance && a.element_tolerance == b.element_tolerance &&
         a.accumulation == b.accumulation;
}

std::string_view to_string(Accumulation accumulation) { return accumulation == Accumulation::f16 ? "f16" : "f32"; }

std::optional<Accumulation> parse_accumulation(std::string_view text) {
  if (text == "f32") return Accumulation::f32;
  if (text == "f16") return Accumulation::f16;
  return std::nullopt;
}

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
  return (shape.batch != 1 ? std::to_string(shape.batch) + "*" : std::string()) + std::to_string(shape.m) + "x" +
         std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

std::string to_string(const Layout &layout) {
  return std::string(layout.transpose_a ? "t" : "n") + (layout.transpose_b ? "t" : "n") +
         (layout.batched ? "-batched" : "");
}

std::optional<Layout> parse_layout(std::string_view text) {
  Layout layout;
  constexpr std::string_view kBatched = "-batched";
  if (text.size() > kBatched.size() && text.substr(text.size() - kBatched.size()) == kBatched) {
    layout.batched = true;
    text.remove_suffix(kBatched.size());
  }
  if (text.size() != 2) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    if (text[i] != 'n' && text[i] != 't') return std::nullopt;
    (i == 0 ? layout.transpose_a : layout.transpose_b) = text[i] == 't';
  }
  return layout;
}

std::string entry_point_signature(const Problem &problem) {
  const std::string t = element_type(problem.precision);
  return std::string("void matmul(") + (problem.layout.batched ? "int batch, " : "") + "int m, int n, int k, const " +
         t + " *A, const " + t + " *B, " + t + " *C)";
}

std::string problem_abi(const Problem &problem) {
  const bool cuda = problem.language == Language::cuda;
  const Layout &layout = problem.layout;
  std::string abi = std::string(cuda ? "extern \"C\" " : "") + entry_point_signature(problem) + ": ";
  const std::string a = layout.transpose_a ? "A^T" : "A", b = layout.transpose_b ? "B^T" : "B";
  abi += "C = " + a + " " + b + ", row-major, ";
  abi += layout.transpose_a ? "A given as its transpose, k x m (element (i, p) of the product's left factor at "
                              "A[p * m + i]), "
                            : "A m x k, ";
  abi += layout.transpose_b ? "B given as its transpose, n x k (element (p, j) of the right factor at B[j * k + p]), "
                            : "B k x n, ";
  abi += "C m x n (overwritten; it holds NaN on entry); ";
  if (layout.batched)
    abi += "batch products, each operand's matrices one after another (product b's A at A + b * m * k, B at "
           "B + b * k * n, C at C + b * m * n); ";
  abi += cuda ? "device pointers, any kernels on any streams, the whole device synchronized after the call"
              : "host pointers";
  if (problem.precision == Precision::f16 && problem.accumulation == Accumulation::f16)
    abi += "; fp16 accumulation allowed (an fp16 accumulator, e.g. HMMA with fp16 accumulators; fp32 accumulation "
           "passes too), within this problem's own tolerances";
  else if (problem.precision == Precision::f16 || problem.precision == Precision::bf16)
    abi += "; fp32 accumulation";
  if (problem.precision == Precision::f32 && cuda) abi += "; TF32 tensor cores allowed";
  return abi;
}

std::string element_name(std::size_t index, const Shape &shape) {
  const std::size_t n = static_cast<std::size_t>(shape.n), product = index / c_elements(shape),
                    within = index % c_elements(shape);
  return "C[" + (shape.batch > 1 ? std::to_string(product) + "][" : std::string()) + std::to_string(within / n) +
         "][" + std::to_string(within % n) + "]";
}

std::string row_name(std::size_t row, const Shape &shape) {
  const std::size_t m = static_cast<std::size_t>(shape.m);
  return shape.batch > 1 ? "product " + std::to_string(row / m) + ", row " + std::to_string(row % m)
                         : "row " + std::to_string(row);
}

std::optional<Shape> parse_shape(std::string_view text) {
  Shape shape;
  const char *cursor = text.data();
  const char *end = text.data() + text.size();
  if (const std::size_t star = text.find('*'); star != std::string_view::npos) {
    auto [next, error] = std::from_chars(cursor, end, shape.batch);
    if (error != std::errc() || shape.batch <= 0 || next != text.data() + star) return std::nullopt;
    cursor = next + 1;
  }
  int *values[3] = {&shape.m, &shape.n, &shape.k};
  for (int i = 0; i < 3; ++i) {
    auto [next, error] = std::from_chars(cursor, end, *values[i]);
    if (error != std::errc() || *values[i] <= 0) return std::nullopt;
    cursor = next;
    if (i < 2) {
      if (cursor == end || *cursor != 'x') return std::nullopt;
      ++cursor;
    }
  }
  if (cursor != end) return std::nullopt;
  return shape;
}

}  // namespace hpcreward
