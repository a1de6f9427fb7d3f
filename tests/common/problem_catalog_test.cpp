// The problem catalog: the built-in catalogs parse and the default one is the 15 problems of
// before; every mistake in a catalog file is refused with the entry and key named; check shapes
// and tolerances are derived; find_problem reads whichever catalog is installed.
#include "common/problem_catalog.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "common/builtin_catalogs.hpp"
#include "common/messages_json.hpp"

namespace hpcreward {
namespace {

std::string refusal(const std::string &json) {
  try {
    parse_problem_catalog(json, "test.json");
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "accepted";
}

std::string catalog_with(const std::string &second_problem) {
  return R"({"catalog": "t", "problems": [{"id": "a", "language": "c", "precision": "f64", "shape": "64x64x64"}, )" +
         second_problem + "]}";
}

TEST(ProblemCatalog, TheDefaultCatalogIsTheFifteenProblemsOfBefore) {
  const ProblemCatalog catalog = load_problem_catalog("default");
  EXPECT_EQ(catalog.source, "built-in default");
  ASSERT_EQ(catalog.problems.size(), 15u);
  EXPECT_EQ(catalog.problems.front().id, "dgemm-256");
  for (const Problem &problem : catalog.problems) {
    const int size = problem.nominal.m;
    EXPECT_EQ(problem.nominal, (Shape{size, size, size})) << problem.id;
    EXPECT_EQ(problem.check_shapes, (std::vector<Shape>{{size + 1, size - 1, size + 7}, {31, 17, 23}})) << problem.id;
    const bool cuda = problem.language == Language::cuda;
    EXPECT_EQ(problem.id.rfind("cuda-", 0) == 0, cuda) << problem.id;
    const double tolerance = !cuda ? (problem.precision == Precision::f64 ? 1e-10 : 1e-4)
                             : problem.precision == Precision::f64 ? 1e-12
                             : problem.precision == Precision::f32 ? 1.25e-3
                                                                   : 5.5e-4;  // 2e-3 before fp16 accumulation's table
    EXPECT_EQ(problem.tolerance, tolerance) << problem.id;
    EXPECT_EQ(problem.element_tolerance, !cuda ? 0 : problem.precision == Precision::f64 ? 1e-10 : 1e-2) << problem.id;
    EXPECT_EQ(problem.accumulation, Accumulation::f32) << problem.id;
  }
  EXPECT_EQ(catalog.find("cuda-hgemm-8192")->precision, Precision::f16);
  EXPECT_EQ(builtin_problems().size(), 15u);
}

TEST(ProblemCatalog, EveryBuiltInCatalogParses) {
  const std::vector<std::string> names = builtin_catalog_names();
  EXPECT_EQ(names, (std::vector<std::string>{"default", "kernelbench-level1", "llm-layers", "gemm-kinds", "cuda-l2"}));
  for (const std::string &name : names) {
    const ProblemCatalog catalog = load_problem_catalog(name);
    EXPECT_EQ(catalog.name, name);
    EXPECT_FALSE(catalog.problems.empty()) << name;
  }
  const ProblemCatalog kernelbench = load_problem_catalog("kernelbench-level1");
  EXPECT_EQ(kernelbench.problems.size(), 13u);
  EXPECT_EQ(kernelbench.find("kb1-3-batched")->nominal, (Shape{512, 2048, 1024, 128}));
  EXPECT_TRUE(kernelbench.find("kb1-3-batched")->layout.batched);
  EXPECT_EQ(kernelbench.find("kb1-16-transposed-a")->layout, (Layout{.transpose_a = true}));
  EXPECT_EQ(kernelbench.find("kb1-17-transposed-b")->layout, (Layout{.transpose_b = true}));
  EXPECT_EQ(kernelbench.find("kb1-18-transposed-both")->layout, (Layout{.transpose_a = true, .transpose_b = true}));
  EXPECT_EQ(kernelbench.find("kb1-8-irregular")->nominal, (Shape{8205, 5921, 2949}));
  EXPECT_EQ(kernelbench.find("kb1-4-matrix-vector")->check_shapes.front(), (Shape{2049, 2, 1048583}))
      << "a one-column problem's near shape widens it";
  const ProblemCatalog llm = load_problem_catalog("llm-layers");
  EXPECT_EQ(llm.problems.size(), 32u);
  EXPECT_EQ(llm.find("llm-o-t4096-bf16")->precision, Precision::bf16);
  EXPECT_EQ(llm.find("llm-down-t4096-f16")->nominal, (Shape{4096, 4096, 14336}));
  EXPECT_EQ(llm.find("llm-qkv-t1-f16")->nominal, (Shape{1, 6144, 4096}));
  const ProblemCatalog kinds = load_problem_catalog("gemm-kinds");
  EXPECT_TRUE(same_definition(*kinds.find("dgemm-256"), *load_problem_catalog("default").find("dgemm-256")))
      << "the corpora's problem, as the default catalog defines it";
  EXPECT_EQ(kinds.find("dgemm-tt-batched-8x128")->check_shapes,
            (std::vector<Shape>{{129, 127, 135, 3}, {31, 17, 23, 2}}));
}

TEST(ProblemCatalog, TheCudaL2CatalogIsTheirThousandShapesInBothLayoutsAndBothAccumulations) {
  const ProblemCatalog l2 = load_problem_catalog("cuda-l2");
  ASSERT_EQ(l2.problems.size(), 4000u);
  EXPECT_EQ(l2.problems[0].id, "l2-64x64x64-nn") << "the fp32-accumulation ids first, as before";
  EXPECT_EQ(l2.problems[1999].id, "l2-16384x16384x16384-nt");
  const int sizes[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 12288, 16384};
  for (int m : sizes)
    for (int n : sizes)
      for (int k : sizes) {
        const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
        const Problem *given = l2.find("l2-" + shape + "-nn");
        const Problem *transposed = l2.find("l2-" + shape + "-nt");
        ASSERT_NE(given, nullptr) << shape;
        ASSERT_NE(transposed, nullptr) << shape;
        EXPECT_EQ(given->nominal, (Shape{m, n, k}));
        EXPECT_EQ(given->layout, Layout{});
        EXPECT_EQ(transposed->layout, (Layout{.transpose_b = true})) << "their b_col_major: B as n x k";
        EXPECT_EQ(given->language, Language::cuda);
        EXPECT_EQ(given->precision, Precision::f16) << "fp16 operands and output, fp32 accumulation";
        EXPECT_TRUE(given->check_shapes.empty()) << "their kernels are written for their shape";
        EXPECT_TRUE(transposed->check_shapes.empty());
        EXPECT_EQ(given->accumulation, Accumulation::f32) << "their F32F16F16F32";
        EXPECT_EQ(given->tolerance, derived_tolerance(Precision::f16, Language::cuda, k));
        // Their F16F16F16F16 (kernels/a100_F16F16F16F16): the same shapes, fp16 accumulation.
        for (const Problem *fp32 : {given, transposed}) {
          const Problem *fp16 = l2.find(fp32->id + "-f16acc");
          ASSERT_NE(fp16, nullptr) << fp32->id;
          EXPECT_EQ(fp16->accumulation, Accumulation::f16);
          EXPECT_EQ(fp16->nominal, fp32->nominal);
          EXPECT_EQ(fp16->layout, fp32->layout);
          EXPECT_EQ(fp16->precision, Precision::f16);
          EXPECT_TRUE(fp16->check_shapes.empty());
          EXPECT_EQ(fp16->tolerance, derived_tolerance(Precision::f16, Language::cuda, k, Accumulation::f16));
          EXPECT_EQ(fp16->element_tolerance, 4e-3);
          EXPECT_GT(fp16->tolerance, fp32->tolerance);
          EXPECT_FALSE(same_definition(*fp16, *fp32)) << "a run that resumes cannot take one for the other";
        }
      }
}

TEST(ProblemCatalog, AccumulationIsAKeyOfCudaF16ProblemsOnly) {
  const ProblemCatalog catalog = parse_problem_catalog(
      catalog_with(R"({"id": "h", "language": "cuda", "precision": "f16", "shape": "64x64x1024", "accumulation": "f16"},
                      {"id": "g", "language": "cuda", "precision": "f16", "shape": "64x64x1024", "accumulation": "f32"},
                      {"id": "d", "language": "cuda", "precision": "f16", "shape": "64x64x1024"})"),
      "test.json");
  const Problem &h = *catalog.find("h"), &g = *catalog.find("g"), &d = *catalog.find("d");
  EXPECT_EQ(h.accumulation, Accumulation::f16);
  EXPECT_EQ(g.accumulation, Accumulation::f32);
  EXPECT_EQ(d.accumulation, Accumulation::f32) << "the default";
  EXPECT_TRUE(same_definition(g, d));
  EXPECT_FALSE(same_definition(h, d));
  EXPECT_EQ(h.tolerance, 0x1p-11 * (1 + std::sqrt(1024.0 / 32)));
  EXPECT_EQ(h.element_tolerance, 4e-3);
  EXPECT_EQ(d.tolerance, 5.5e-4);
  EXPECT_EQ(d.element_tolerance, 1e-2);
  // An entry's own tolerances still win.
  const Problem own = parse_problem_catalog(catalog_with(R"({"id": "o", "language": "cuda", "precision": "f16",
      "shape": "8x8x8", "accumulation": "f16", "tolerance": 0.5, "element_tolerance": 0.25})"), "test.json")
                          .problems[1];
  EXPECT_EQ(own.tolerance, 0.5);
  EXPECT_EQ(own.element_tolerance, 0.25);
  EXPECT_EQ(own.accumulation, Accumulation::f16);
  struct Case {
    std::string entry, expected;
  };
  const Case cases[] = {
      {R"({"id": "b", "language": "cuda", "precision": "bf16", "shape": "8x8x8", "accumulation": "f16"})",
       R"(problems[1] ("b").accumulation: is for CUDA f16 problems only ("language": "cuda", "precision": "f16"), )"
       R"(whose accumulator may be fp16 or fp32; a cuda bf16 problem accumulates in fp32: leave the key out)"},
      {R"({"id": "b", "language": "cuda", "precision": "f32", "shape": "8x8x8", "accumulation": "f32"})",
       "a cuda f32 problem accumulates in fp32: leave the key out"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "accumulation": "f16"})",
       "a c f64 problem accumulates in fp64: leave the key out"},
      {R"({"id": "b", "language": "cuda", "precision": "f16", "shape": "8x8x8", "accumulation": "fp16"})",
       R"(.accumulation: "fp16" is not "f16" (an fp16 accumulator allowed) or "f32" (fp32 accumulation, the default))"},
      {R"({"id": "b", "language": "cuda", "precision": "f16", "shape": "8x8x8", "accumulation": 16})",
       ".accumulation: 16 is not \"f16\""},
  };
  for (const Case &c : cases) {
    const std::string message = refusal(catalog_with(c.entry));
    EXPECT_NE(message.find(c.expected), std::string::npos) << "expected \"" << c.expected << "\" in: " << message;
  }
}

TEST(ProblemCatalog, LayoutsAndBatchesAreKeysOfTheirOwn) {
  const ProblemCatalog catalog = parse_problem_catalog(
      catalog_with(R"({"id": "b", "language": "c", "precision": "f32", "shape": "64x32x16", "layout": "tn",
                       "batch": 3, "check_shapes": ["5*7x9x11", "7x9x11"]})"),
      "test.json");
  const Problem &b = *catalog.find("b");
  EXPECT_EQ(b.layout, (Layout{.transpose_a = true, .batched = true}));
  EXPECT_EQ(b.nominal, (Shape{64, 32, 16, 3}));
  EXPECT_EQ(b.nominal.flops(), 3 * 2.0 * 64 * 32 * 16);
  EXPECT_EQ(b.check_shapes, (std::vector<Shape>{{7, 9, 11, 5}, {7, 9, 11, 1}}));
  EXPECT_EQ(to_string(b.nominal), "3*64x32x16");
  EXPECT_EQ(to_string(b.layout), "tn-batched");
  EXPECT_EQ(catalog.find("a")->layout, Layout{}) << "row-major and unbatched unless the entry says";
  EXPECT_EQ(parse_layout("tn-batched"), b.layout);
  EXPECT_EQ(parse_shape("3*64x32x16"), b.nominal);
  for (const char *bad : {"", "nx", "tn-", "-batched", "tnn", "TN"}) EXPECT_FALSE(parse_layout(bad)) << bad;
  for (const char *bad : {"0*8x8x8", "*8x8x8", "2*", "2**8x8x8", "2*8x8", "x2*8x8x8"}) EXPECT_FALSE(parse_shape(bad)) << bad;
  // A batch of one is still the batched signature.
  const ProblemCatalog one = parse_problem_catalog(
      catalog_with(R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "batch": 1})"), "test.json");
  EXPECT_TRUE(one.find("b")->layout.batched);
  EXPECT_EQ(one.find("b")->check_shapes, (std::vector<Shape>{{9, 7, 15, 3}, {31, 17, 23, 2}}));
}

TEST(ProblemCatalog, AnEntryMayGiveItsOwnCheckShapesAndTolerances) {
  const ProblemCatalog catalog = parse_problem_catalog(
      catalog_with(R"({"id": "b", "language": "cuda", "precision": "f32", "shape": "128x64x32",
                       "check_shapes": ["3x5x7"], "tolerance": 1e-3, "element_tolerance": 5e-3,
                       "description": "a small one"})"),
      "test.json");
  const Problem &b = *catalog.find("b");
  EXPECT_EQ(b.check_shapes, (std::vector<Shape>{{3, 5, 7}}));
  EXPECT_EQ(b.tolerance, 1e-3);
  EXPECT_EQ(b.element_tolerance, 5e-3);
  EXPECT_EQ(b.description, "a small one");
  EXPECT_EQ(catalog.find("a")->check_shapes, derived_check_shapes({64, 64, 64}));
  const ProblemCatalog one_shape = parse_problem_catalog(
      catalog_with(R"({"id": "b", "language": "cuda", "precision": "f16", "shape": "1024x64x128", "check_shapes": []})"),
      "test.json");
  EXPECT_TRUE(one_shape.find("b")->check_shapes.empty()) << "[]: the nominal shape alone";
}

TEST(ProblemCatalog, MistakesAreRefusedWithTheEntryAndKeyNamed) {
  struct Case {
    std::string entry, expected;
  };
  const std::vector<Case> cases = {
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "64x0x64"})", R"(problems[1] ("b").shape: "64x0x64")"},
      {R"({"id": "b", "language": "c", "precision": "f64"})", R"(problems[1] ("b"): missing "shape")"},
      {R"({"id": "b", "language": "c", "precision": "f128", "shape": "8x8x8"})", R"(problems[1] ("b").precision: "f128")"},
      {R"({"id": "b", "language": "c", "precision": "f16", "shape": "8x8x8"})", "CUDA only"},
      {R"({"id": "b", "language": "c", "precision": "bf16", "shape": "8x8x8"})", "\"bf16\" (16-bit operands and output, fp32 accumulation) is CUDA only"},
      {R"({"id": "b", "language": "rust", "precision": "f64", "shape": "8x8x8"})", R"(.language: "rust")"},
      {R"({"id": "B!", "language": "c", "precision": "f64", "shape": "8x8x8"})", R"(problems[1] ("B!").id)"},
      {R"({"id": "an-id-of-thirty-three-characters-", "language": "c", "precision": "f64", "shape": "8x8x8"})",
       "(the log keeps 32)"},
      {R"({"id": "a", "language": "c", "precision": "f64", "shape": "8x8x8"})", R"(id "a" is defined twice)"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "shape_": "1x1x1"})", R"(unknown key "shape_")"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "check_shapes": ["8x8x8"]})",
       "check_shapes[0]: is the nominal shape"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "check_shapes": "9x9x9"})", ".check_shapes: must be a list"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "tolerance": 0})", ".tolerance: 0 is not"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "element_tolerance": 0.1})",
       "element_tolerance: is for CUDA problems only"},
      {R"({"id": "b", "language": "cuda", "precision": "f64", "shape": "65536x65536x65536"})", "more than 32 GiB"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "layout": "tn-batched"})", ".layout: \"tn-batched\" is not"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "layout": "ab"})", ".layout: \"ab\" is not \"nn\""},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "2*8x8x8"})", ".shape: \"MxNxK\" without a batch"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "batch": 0})", ".batch: 0 is not a whole number"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "batch": 2.5})", ".batch: 2.5 is not"},
      {R"({"id": "b", "language": "c", "precision": "f64", "shape": "8x8x8", "check_shapes": ["2*9x9x9"]})",
       "check_shapes[0]: 2*9x9x9 has a batch, and the problem has no \"batch\" key"},
      {R"({"id": "b", "language": "cuda", "precision": "f64", "shape": "4096x4096x4096", "batch": 100})", "more than 32 GiB"},
  };
  for (const Case &c : cases) {
    const std::string message = refusal(catalog_with(c.entry));
    EXPECT_NE(message.find("problem catalog test.json: "), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << "expected \"" << c.expected << "\" in: " << message;
  }
  EXPECT_NE(refusal("{").find("not JSON"), std::string::npos);
  EXPECT_NE(refusal(R"({"catalog": "t", "problems": [], "x": 1})").find(R"(unknown key "x")"), std::string::npos);
  EXPECT_NE(refusal(R"({"catalog": "t", "problems": []})").find("problems: must be a non-empty list"), std::string::npos);
  EXPECT_NE(refusal(R"({"problems": [{}]})").find("catalog: the catalog's name is required"), std::string::npos);
}

TEST(ProblemCatalog, CudaToleranceGrowsWithKOnlyWhereAccumulationDecides) {
  for (int k : {23, 1024, 8192, 65536}) {
    EXPECT_EQ(derived_tolerance(Precision::f32, Language::cuda, k), 1.25e-3) << k;
    if (k < 36864) EXPECT_EQ(derived_tolerance(Precision::f16, Language::cuda, k), 5.5e-4) << k;
    EXPECT_EQ(derived_element_tolerance(Precision::f32, Language::cuda, k), 1e-2) << k;
    EXPECT_EQ(derived_element_tolerance(Precision::f16, Language::cuda, k), 1e-2) << k;
  }
  // f16 with fp32 accumulation grows from k of about 37,000 (its bound is tighter than f32's).
  EXPECT_EQ(derived_tolerance(Precision::f16, Language::cuda, 36864), 5.5e-4);
  EXPECT_GT(derived_tolerance(Precision::f16, Language::cuda, 40000), 5.5e-4);
  // fp16 accumulation: the fp16 accumulator's own scale, 2^-11 (1 + sqrt(k / 32)), at every k.
  for (int k : {23, 64, 1024, 16384, 65536})
    EXPECT_DOUBLE_EQ(derived_tolerance(Precision::f16, Language::cuda, k, Accumulation::f16),
                     fp16_accumulator_error(k)) << k;
  EXPECT_NEAR(fp16_accumulator_error(1024), 3.25e-3, 1e-5);
  EXPECT_NEAR(fp16_accumulator_error(16384), 1.153e-2, 1e-5);
  EXPECT_EQ(derived_element_tolerance(Precision::f16, Language::cuda, 16384, Accumulation::f16), 4e-3);
  // Above the 3.6e-3 an honest TF32 kernel read at k = 2^20 on an H200, with a margin.
  EXPECT_GT(derived_tolerance(Precision::f32, Language::cuda, 1 << 20), 2 * 3.6e-3);
  EXPECT_GT(derived_tolerance(Precision::f32, Language::cuda, 1 << 19), 2 * 1.6e-3);
  EXPECT_EQ(derived_tolerance(Precision::f64, Language::cuda, 1 << 20), 1e-12);
  EXPECT_EQ(derived_tolerance(Precision::f32, Language::c, 1 << 20), 1e-4);
  EXPECT_EQ(load_problem_catalog("kernelbench-level1").find("kb1-6-large-k")->tolerance,
            derived_tolerance(Precision::f32, Language::cuda, 524288));
}

// GET /v1/problems and the tasks' JSON name an f16 problem's accumulation; an older text without
// it reads as fp32 accumulation.
TEST(ProblemCatalog, TheJsonOfAProblemNamesItsAccumulation) {
  const ProblemCatalog l2 = load_problem_catalog("cuda-l2");
  const Problem &fp16 = *l2.find("l2-64x128x4096-nn-f16acc");
  const nlohmann::json text = fp16;
  EXPECT_EQ(text.at("accumulation"), "f16");
  const Problem back = text.get<Problem>();
  EXPECT_TRUE(same_definition(back, fp16));
  EXPECT_EQ(nlohmann::json(*l2.find("l2-64x128x4096-nn")).at("accumulation"), "f32");
  EXPECT_FALSE(nlohmann::json(*load_problem_catalog("default").find("dgemm-256")).contains("accumulation"));
  nlohmann::json older = text;
  older.erase("accumulation");
  EXPECT_EQ(older.get<Problem>().accumulation, Accumulation::f32);
  older["accumulation"] = "f8";
  EXPECT_THROW(older.get<Problem>(), std::invalid_argument);
}

TEST(ProblemCatalog, EachProblemStatesItsAbi) {
  const ProblemCatalog llm = load_problem_catalog("llm-layers");
  EXPECT_EQ(problem_abi(*llm.find("llm-o-t4096-bf16")),
            "extern \"C\" void matmul(int m, int n, int k, const __nv_bfloat16 *A, const __nv_bfloat16 *B, "
            "__nv_bfloat16 *C): C = A B, row-major, A m x k, B k x n, C m x n (overwritten; it holds NaN on entry); "
            "device pointers, any kernels on any streams, the whole device synchronized after the call; fp32 "
            "accumulation");
  const std::string c = problem_abi(*load_problem_catalog("default").find("dgemm-256"));
  EXPECT_EQ(c.rfind("void matmul(int m, int n, int k, const double *A, const double *B, double *C)", 0), 0u) << c;
  EXPECT_NE(c.find("host pointers"), std::string::npos);
  const ProblemCatalog kernelbench = load_problem_catalog("kernelbench-level1");
  const std::string batched = problem_abi(*kernelbench.find("kb1-3-batched"));
  EXPECT_EQ(batched.rfind("extern \"C\" void matmul(int batch, int m, int n, int k, const float *A", 0), 0u) << batched;
  EXPECT_NE(batched.find("product b's A at A + b * m * k"), std::string::npos) << batched;
  const std::string tt = problem_abi(*kernelbench.find("kb1-18-transposed-both"));
  EXPECT_NE(tt.find("C = A^T B^T"), std::string::npos) << tt;
  EXPECT_NE(tt.find("at A[p * m + i]"), std::string::npos) << tt;
  EXPECT_NE(tt.find("at B[j * k + p]"), std::string::npos) << tt;
  const ProblemCatalog l2 = load_problem_catalog("cuda-l2");
  const std::string fp16 = problem_abi(*l2.find("l2-1024x1024x1024-nt-f16acc"));
  EXPECT_NE(fp16.find("; fp16 accumulation allowed (an fp16 accumulator, e.g. HMMA with fp16 accumulators; fp32 "
                      "accumulation passes too)"), std::string::npos) << fp16;
  EXPECT_FALSE(fp16.ends_with("; fp32 accumulation")) << fp16;
  const std::string fp32 = problem_abi(*l2.find("l2-1024x1024x1024-nt"));
  EXPECT_TRUE(fp32.ends_with("; fp32 accumulation")) << fp32;
}

TEST(ProblemCatalog, DerivedCheckShapesStraddleTheNominalOne) {
  EXPECT_EQ(derived_check_shapes({256, 256, 256}), (std::vector<Shape>{{257, 255, 263}, {31, 17, 23}}));
  EXPECT_EQ(derived_check_shapes({1, 1, 4}), (std::vector<Shape>{{2, 2, 11}, {31, 17, 23}}));
}

TEST(ProblemCatalog, AFileOrABuiltInNameAndWhatIsInstalledIsWhatFindProblemReads) {
  const auto path = std::filesystem::temp_directory_path() / "hpcreward_catalog_test.json";
  std::ofstream(path) << catalog_with(R"({"id": "tall", "language": "c", "precision": "f32", "shape": "4096x8x64"})");
  const ProblemCatalog catalog = load_problem_catalog(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(catalog.source, path.string());
  EXPECT_EQ(catalog.ids(), "a, tall");

  ASSERT_NE(find_problem("dgemm-256"), nullptr) << "the default until another is installed";
  EXPECT_EQ(find_problem("tall"), nullptr);
  install_problem_catalog(catalog);
  EXPECT_EQ(find_problem("dgemm-256"), nullptr);
  ASSERT_NE(find_problem("tall"), nullptr);
  EXPECT_EQ(find_problem("tall")->nominal, (Shape{4096, 8, 64}));
  EXPECT_EQ(known_problem_ids(), "a, tall");
  EXPECT_EQ(builtin_problems().size(), 15u) << "the default catalog's, whatever is installed";
  install_problem_catalog(load_problem_catalog("default"));
  EXPECT_NE(find_problem("dgemm-256"), nullptr);

  try {
    load_problem_catalog("no-such-catalog");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("default, kernelbench-level1, llm-layers, gemm-kinds"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace hpcreward
