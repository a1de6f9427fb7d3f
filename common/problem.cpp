#include "common/problem.hpp"

#include <charconv>

namespace hpcreward {

std::string_view to_string(Precision precision) {
  return precision == Precision::f64 ? "f64" : "f32";
}

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "f64") return Precision::f64;
  if (text == "f32") return Precision::f32;
  return std::nullopt;
}

std::string element_type(Precision precision) {
  return precision == Precision::f64 ? "double" : "float";
}

std::string to_string(const Shape &shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
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

namespace {

Problem make_gemm(Precision precision, int size) {
  const std::string prefix = precision == Precision::f64 ? "dgemm-" : "sgemm-";
  const double tolerance = precision == Precision::f64 ? 1e-10 : 1e-4;
  // Check shapes straddle the nominal size with distinct odd m, n, k.
  return Problem{prefix + std::to_string(size), precision, Language::c, Shape{size, size, size},
                 {Shape{size + 1, size - 1, size + 7}, Shape{31, 17, 23}}, tolerance};
}

}  // namespace

const std::vector<Problem> &builtin_problems() {
  static const std::vector<Problem> problems = {
      make_gemm(Precision::f64, 256),  make_gemm(Precision::f64, 512),
      make_gemm(Precision::f64, 1024), make_gemm(Precision::f32, 256),
      make_gemm(Precision::f32, 512),  make_gemm(Precision::f32, 1024),
  };
  return problems;
}

const Problem *find_problem(std::string_view id) {
  for (const Problem &problem : builtin_problems())
    if (problem.id == id) return &problem;
  return nullptr;
}

std::string known_problem_ids() {
  std::string ids;
  for (const Problem &problem : builtin_problems()) ids += (ids.empty() ? "" : ", ") + problem.id;
  return ids;
}

}  // namespace hpcreward
