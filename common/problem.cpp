#include "common/problem.hpp"

#include <charconv>

namespace hpcreward {

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::f64: return "f64";
    case Precision::f32: return "f32";
    case Precision::f16: return "f16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "f64") return Precision::f64;
  if (text == "f32") return Precision::f32;
  if (text == "f16") return Precision::f16;
  return std::nullopt;
}

std::string element_type(Precision precision) {
  switch (precision) {
    case Precision::f64: return "double";
    case Precision::f32: return "float";
    case Precision::f16: return "__half";
  }
  return "?";
}

std::size_t element_bytes(Precision precision) {
  switch (precision) {
    case Precision::f64: return 8;
    case Precision::f32: return 4;
    case Precision::f16: return 2;
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

// CUDA problems. Normwise tolerances, each element weighed by its scale (|A||B|)_ij
// (bench_node/measure/scaled_normwise.hpp), on zero-mean inputs: f64 1e-12 (two fp64 summation
// orders differ near 1e-15); f32 1.25e-3 admits TF32 tensor-core operands, rounded (at most
// 3.4e-4) or truncated (at most 8.8e-4), and refuses bf16 ones (never under 1.78e-3; 400 seeds
// at 31 x 17 x 23, where a few products decide each element); f16 2e-3
// against an fp32-accumulated reference admits fp32 accumulation with a rounded __half output
// (about 2e-4) and refuses fp16 accumulation at k >= 1024. Element bounds relative to (|A||B|)_ij.
Problem make_cuda_gemm(Precision precision, int size) {
  static const char *const prefixes[] = {"cuda-dgemm-", "cuda-sgemm-", "cuda-hgemm-"};
  const int index = precision == Precision::f64 ? 0 : precision == Precision::f32 ? 1 : 2;
  const double tolerance = precision == Precision::f64 ? 1e-12 : precision == Precision::f32 ? 1.25e-3 : 2e-3;
  const double element_tolerance = precision == Precision::f64 ? 1e-10 : 1e-2;
  Problem problem{prefixes[index] + std::to_string(size), precision, Language::cuda,
                  Shape{size, size, size},
                  {Shape{size + 1, size - 1, size + 7}, Shape{31, 17, 23}}, tolerance};
  problem.element_tolerance = element_tolerance;
  return problem;
}

}  // namespace

const std::vector<Problem> &builtin_problems() {
  static const std::vector<Problem> problems = [] {
    std::vector<Problem> list = {
        make_gemm(Precision::f64, 256),  make_gemm(Precision::f64, 512),
        make_gemm(Precision::f64, 1024), make_gemm(Precision::f32, 256),
        make_gemm(Precision::f32, 512),  make_gemm(Precision::f32, 1024),
    };
    for (Precision precision : {Precision::f64, Precision::f32, Precision::f16})
      for (int size : {1024, 4096, 8192}) list.push_back(make_cuda_gemm(precision, size));
    return list;
  }();
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
