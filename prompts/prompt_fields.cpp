#include "prompts/prompt_fields.hpp"

#include <algorithm>
#include <cstdio>

#include "common/stage_libraries.hpp"
#include "techniques/known_techniques.hpp"

namespace hpcreward::prompts {

namespace {

constexpr PromptFieldDoc kFields[] = {
    {"problem", "the problem's id (`dgemm-256`), as a trainer names it per sample"},
    {"summary", "the catalog's description of the problem, or its precision, layout and shape in words"},
    {"language", "`C` or `CUDA C++`, and the compiler that builds it"},
    {"signature", "the entry point's declaration (`void matmul(int m, int n, int k, const double *A, ...)`)"},
    {"abi", "the whole contract of the entry point: layouts, batches, pointers, what C holds on entry"},
    {"precision", "the element types and the accumulation"},
    {"shape", "the timed shape (m x n x k, and the batch)"},
    {"check_shapes", "the other shapes every candidate is verified at, and that sizes are arguments"},
    {"tolerance", "how close C must be to the reference, as the checks measure it"},
    {"stage", "the stage's name"},
    {"compiler_flags", "the flags the stage compiles with"},
    {"requires", "the techniques the stage requires, in words"},
    {"allows", "the techniques it allows besides, in words"},
    {"forbids", "the techniques of the language it refuses, in words"},
    {"includes", "the headers a candidate may include in this stage"},
    {"rules", "what no candidate may do (the sandbox and audit rules, in words)"},
    {"node", "the hardware the ranks of the problem's language run on (CPU model, cores, AVX-512; GPU, "
             "architecture, memory)"},
    {"reward", "what the reward of a correct candidate is (the run's reward mode)"},
    {"failures", "what earns a penalty instead of a reward"},
    {"answer_format", "how to write the answer so that the code is found"},
};

struct TechniqueWords {
  std::string_view name, words;
};

// Each as the detectors read it (techniques/README.md): what a candidate must do to be seen
// using it, and what counts as using it where it is refused.
constexpr TechniqueWords kTechniqueWords[] = {
    {"openmp", "OpenMP (`#pragma omp parallel for` or other OpenMP directives, so that the object calls the "
               "OpenMP runtime)"},
    {"avx512", "AVX-512 (`_mm512_*` intrinsics or `__m512`, `__m512d`, `__m512i` values from `immintrin.h`, "
               "compiled to zmm instructions)"},
    {"blocking", "cache blocking (a tiled loop nest: a tile loop stepping by a tile size, with the loops inside "
                 "it starting from the tile variable, and some tile smaller than the problem's smallest "
                 "dimension)"},
    {"simd", "SIMD intrinsics below AVX-512 (`_mm_*` and `_mm256_*` intrinsics, `__m128*` and `__m256*` values: "
             "SSE to AVX2)"},
    {"smem", "shared memory (`__shared__` tiles the kernel loads and reads)"},
    {"tensor", "tensor cores (`nvcuda::wmma` from `mma.h`, or `mma.sync`/`wgmma` in inline PTX)"},
    {"async", "asynchronous copies into shared memory (`cp.async`: `__pipeline_memcpy_async`, "
              "`cuda::memcpy_async`, or PTX; or TMA bulk copies)"},
    {"wgmma", "Hopper's warpgroup MMA (`wgmma.mma_async` in PTX, or CuTe's SM90 GMMA atoms such as "
              "`SM90_64x128x16_F32F16F16_SS`, with operands in shared memory)"},
    {"tma", "the Tensor Memory Accelerator's copies into shared memory (`cp.async.bulk.tensor` with a tensor "
            "map, e.g. CuTe's `make_tma_copy` with `SM90_TMA_LOAD`, whose host side encodes the map through "
            "`cudaGetDriverEntryPointByVersion`; or `cp.async.bulk`)"},
};

// The headers a C answer is likely to want; any header of the compiler's may be included
// (bench_node/source_checks/c_include_policy.hpp; tests/prompts/ checks each of these passes).
constexpr std::string_view kCHeaders[] = {
    "stddef.h", "stdint.h", "stdlib.h", "string.h", "math.h", "float.h", "limits.h", "stdbool.h",
    "stdalign.h", "stdatomic.h", "omp.h", "immintrin.h", "x86intrin.h", "mmintrin.h", "xmmintrin.h",
    "emmintrin.h", "pmmintrin.h", "tmmintrin.h", "smmintrin.h", "nmmintrin.h"};

// A selection of the CUDA include table's (bench_node/cuda/cuda_include_policy.cpp), each
// allowed there (tested); the prompt names the families rather than all 70.
constexpr std::string_view kCudaHeaders[] = {
    "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "mma.h", "cuda_pipeline.h", "cuda_awbarrier.h",
    "cooperative_groups.h", "cooperative_groups/memcpy_async.h", "cuda/pipeline", "cuda/barrier",
    "cuda/ptx", "cuda/std/cstdint", "cuda/std/type_traits", "stdint.h", "math.h", "cstdint", "cmath",
    "type_traits", "utility", "algorithm", "array"};
constexpr std::string_view kCuteHeaders[] = {
    "cute/tensor.hpp", "cute/atom/mma_atom.hpp", "cute/atom/copy_atom.hpp", "cutlass/numeric_types.h",
    "cutlass/arch/*", "cutlass/pipeline/*", "cutlass/cluster_launch.hpp"};
// What a stage allowing all of CUTLASS adds.
constexpr std::string_view kCutlassHeaders[] = {
    "cutlass/gemm/device/gemm_universal_adapter.h", "cutlass/gemm/collective/collective_builder.hpp",
    "cutlass/epilogue/collective/collective_builder.hpp", "cutlass/util/packed_stride.hpp"};

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string joined(const std::vector<std::string> &parts, std::string_view separator) {
  std::string out;
  for (const std::string &part : parts) out += (out.empty() ? "" : std::string(separator)) + part;
  return out;
}

std::string precision_words(const Problem &problem) {
  const bool cuda = problem.language == Language::cuda;
  switch (problem.precision) {
    case Precision::f64: return "double precision: `double` operands and output (f64)";
    case Precision::f32:
      return cuda ? "single precision: `float` operands and output (f32); TF32 tensor cores are allowed"
                  : "single precision: `float` operands and output (f32)";
    case Precision::f16:
      return problem.accumulation == Accumulation::f16
                 ? "half precision: `__half` operands and output (f16); fp16 accumulation is allowed (an fp16 "
                   "accumulator, e.g. tensor-core MMA with fp16 accumulators), and fp32 accumulation passes too"
                 : "half precision: `__half` operands and output (f16), accumulated in fp32 (an fp16 accumulator "
                   "fails the checks)";
    case Precision::bf16: return "bfloat16: `__nv_bfloat16` operands and output (bf16), accumulated in fp32";
  }
  return "";
}

std::string layout_words(const Layout &layout) {
  if (!layout.transpose_a && !layout.transpose_b) return "row-major A and B";
  if (layout.transpose_a && layout.transpose_b) return "A and B given transposed";
  return layout.transpose_a ? "A given transposed" : "B given transposed";
}

std::string shape_words(const Shape &shape) {
  const std::string product = std::to_string(shape.m) + " x " + std::to_string(shape.n) + " x " +
                              std::to_string(shape.k) + " (m x n x k: C is m x n, the inner dimension k)";
  return shape.batch > 1 ? std::to_string(shape.batch) + " products of " + product : product;
}

std::string tolerance_words(const Problem &problem) {
  if (problem.language == Language::c)
    return "the error's Frobenius norm relative to the inputs', ||C - C_ref||_F / (||A||_F ||B||_F), must stay "
           "within " + number(problem.tolerance) + " (random zero-mean inputs; a correct product in this precision "
           "sits near k times the machine epsilon)";
  return "||C - C_ref||_F / ||C_ref||_F must stay within " + number(problem.tolerance) +
         ", and every element within " + number(problem.element_tolerance) +
         " of (|A| |B|) at its place (random zero-mean inputs, against an fp64 reference)";
}

// The SIMD intrinsics that compile with the stage's flags: without -mavx* or -march gcc targets
// x86-64's baseline, SSE2, and any wider intrinsic fails to build (the rank refuses it with
// this reason, bench_node/checks/compile_failure.hpp).
std::string simd_words(const StageSpec &stage) {
  auto has = [&](std::string_view prefix) {
    return std::any_of(stage.compiler_flags.begin(), stage.compiler_flags.end(),
                       [&](const std::string &flag) { return flag.starts_with(prefix); });
  };
  if (has("-mavx512") || has("-mavx2") || has("-march=")) return technique_words("simd");
  return "SIMD intrinsics of SSE and SSE2 (`_mm_*` from `emmintrin.h`, `__m128d`, `__m128`, `__m128i`): this stage "
         "compiles without -mavx, so SSE3 to AVX2 intrinsics such as `_mm256_*` do not build here and are refused";
}

std::vector<std::string> technique_list(const std::vector<std::string> &names, const StageSpec &stage) {
  std::vector<std::string> words;
  for (const std::string &name : names) words.push_back(name == "simd" ? simd_words(stage) : technique_words(name));
  return words;
}

std::string includes_words(const Problem &problem, const StageSpec &stage) {
  std::vector<std::string> names;
  for (std::string_view header : allowed_headers(problem.language, stage)) names.emplace_back(header);
  std::string out = "`#include <name>` of " + joined(names, ", ");
  if (problem.language == Language::c)
    return "any `#include <name>` of the compiler's headers, typically " + joined(names, ", ") +
           " (stdio.h, assert.h and a self-test main beside matmul are fine; what the code calls is judged: "
           "memory, <math.h>, OpenMP and output to stdout/stderr, not files, clocks or other libraries); "
           "no quoted, absolute or .. includes" +
           (std::find(stage.compiler_flags.begin(), stage.compiler_flags.end(), "-fopenmp") == stage.compiler_flags.end()
                ? std::string("; omp.h's omp_* functions do not link here (this stage compiles without -fopenmp)")
                : std::string());
  out += ", or of any other header of the toolkit's or the compiler's (cuda.h, cstdio, iostream, vector, string, "
         "mutex, ...: what the host code calls is judged, and output to stdout/stderr, strings, exceptions and "
         "locks pass while the driver API, files, clocks and threads do not); not cuBLAS, cuBLASLt, CUTLASS, "
         "Thrust, CUB, the other CUDA libraries or the profiler";
  switch (cutlass_access(stage.libraries)) {
    case CutlassAccess::none: break;
    case CutlassAccess::cute:
      out += "; in this stage also CuTe (cute/*, TMA's make_tma_copy included) and CUTLASS's arch, pipeline, "
             "numeric and cluster-launch headers (cutlass/cluster_launch.hpp, cutlass/device_kernel.h) and its "
             "error checks (cutlass/util/helper_cuda.hpp, print_error.hpp), but not CUTLASS's ready-made GEMMs "
             "(cutlass/gemm/*, cutlass/epilogue/*, ...)";
      break;
    case CutlassAccess::all:
      out += "; in this stage also all of CUTLASS and CuTe: its device- and kernel-level GEMM templates "
             "(cutlass/gemm/device/gemm_universal_adapter.h, cutlass/gemm/kernel/gemm_universal.hpp), collective "
             "builders and epilogues (cutlass/gemm/collective/collective_builder.hpp, cutlass/epilogue/*) and its "
             "utilities (cutlass/util/*): choosing and tuning a CUTLASS GEMM is the task";
      break;
  }
  return out;
}

std::string rules_words(const Problem &problem) {
  if (problem.language == Language::c)
    return "Plain C (not C++), built by gcc into a shared object with no libraries but libm and OpenMP's; "
           "declare every function before its first call (C11 has no implicit declarations, and the checker's "
           "parser refuses them). No "
           "files, processes, threads of your own, clocks, signals, environment, system calls or inline "
           "assembly; no BLAS or other library doing the multiplication; no code that runs at load time "
           "(constructors); malloc, free, memcpy, memset, assert and printing to stdout or stderr are fine, and "
           "so is a test main beside matmul (it is not run). Do not modify A or B; write every element of C.";
  return "CUDA C++, built by nvcc into a shared object linked against the CUDA runtime only; export `matmul` "
         "with extern \"C\". Launch your own kernels (inline PTX is fine); no cuBLAS, cuBLASLt, CUTLASS "
         "GEMMs (but where the stage allows CUTLASS) or other library doing the multiplication, no driver API "
         "by name (a tensor map's encoder fetched through cudaGetDriverEntryPointByVersion, as CuTe's TMA "
         "does, is fine), no cudaDeviceReset, cudaSetDevice, "
         "device limits, graphs or managed memory, no files, processes, threads or clocks on the host, no code "
         "that runs at load time (a global object with a constructor); error checks that print to stderr or "
         "throw are fine, and so is a test main beside matmul (it is not run). Do not modify A or B; write every "
         "element of C.";
}

std::string node_words(const Problem &problem, const std::vector<NodeDescription> &nodes) {
  if (nodes.empty()) {
    NodeDescription unknown;
    unknown.kind = problem.language == Language::cuda ? "gpu" : "cpu";
    return unknown.text();
  }
  std::vector<std::string> texts;
  for (const NodeDescription &node : nodes) texts.push_back(node.text());
  return texts.size() == 1 ? texts.front() : "one of: " + joined(texts, "; ");
}

}  // namespace

std::span<const PromptFieldDoc> prompt_field_docs() { return kFields; }

const std::vector<std::string> &prompt_field_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const PromptFieldDoc &field : kFields) all.emplace_back(field.name);
    return all;
  }();
  return names;
}

std::vector<std::string_view> allowed_headers(Language language, const StageSpec &stage) {
  if (language == Language::c) return {std::begin(kCHeaders), std::end(kCHeaders)};
  std::vector<std::string_view> headers(std::begin(kCudaHeaders), std::end(kCudaHeaders));
  if (uses_cutlass_headers(stage.libraries))
    headers.insert(headers.end(), std::begin(kCuteHeaders), std::end(kCuteHeaders));
  if (cutlass_access(stage.libraries) == CutlassAccess::all)
    headers.insert(headers.end(), std::begin(kCutlassHeaders), std::end(kCutlassHeaders));
  return headers;
}

std::string technique_words(std::string_view technique) {
  for (const TechniqueWords &entry : kTechniqueWords)
    if (entry.name == technique) return std::string(entry.words);
  return std::string(technique);
}

PromptFields prompt_fields(const PromptInputs &in) {
  const Problem &problem = in.problem;
  const StageSpec &stage = in.stage;
  const bool cuda = problem.language == Language::cuda;
  PromptFields fields;
  fields["problem"] = problem.id;
  fields["summary"] = !problem.description.empty()
                          ? problem.description
                          : std::string(to_string(problem.precision)) + " matrix product, " +
                                layout_words(problem.layout) + ", " + shape_words(problem.nominal);
  fields["language"] = cuda ? "CUDA C++ (nvcc)" : "C (gcc, C11 with GNU extensions)";
  fields["signature"] = std::string(cuda ? "extern \"C\" " : "") + entry_point_signature(problem);
  fields["abi"] = problem_abi(problem);
  fields["precision"] = precision_words(problem);
  fields["shape"] = shape_words(problem.nominal);
  std::vector<std::string> shapes;
  for (const Shape &shape : problem.check_shapes) shapes.push_back(to_string(shape));
  fields["check_shapes"] = shapes.empty()
                               ? "every candidate is verified at the timed shape alone: the problem is that one "
                                 "shape, and a kernel may be written for it"
                               : "besides the timed shape, every candidate is verified at " + joined(shapes, ", ") +
                                     (problem.layout.batched ? " (batch*m x n x k)" : " (m x n x k)") +
                                     ": read the sizes from the arguments, never assume them";
  fields["tolerance"] = tolerance_words(problem);
  fields["stage"] = stage.name;
  std::vector<std::string> flags(stage.compiler_flags.begin(), stage.compiler_flags.end());
  fields["compiler_flags"] = flags.empty() ? "the compiler's defaults" : joined(flags, " ");

  std::vector<std::string> required = stage.techniques_required, also_allowed, refused;
  for (const std::string &name : stage.techniques_allowed)
    if (std::find(required.begin(), required.end(), name) == required.end()) also_allowed.push_back(name);
  const auto known = cuda ? std::span<const std::string_view>(techniques::kCudaTechniques)
                          : std::span<const std::string_view>(techniques::kCTechniques);
  for (std::string_view name : known)
    if (std::find(stage.techniques_allowed.begin(), stage.techniques_allowed.end(), name) ==
        stage.techniques_allowed.end())
      refused.emplace_back(name);
  fields["requires"] = required.empty() ? "nothing beyond a correct, fast kernel"
                                        : "your code must use " + joined(technique_list(required, stage), "; and ");
  fields["allows"] = also_allowed.empty() ? "nothing else" : joined(technique_list(also_allowed, stage), "; ");
  // OpenMP directives in a stage compiled without -fopenmp are ignored by gcc: such code is
  // serial and scores as such, so the prompt says so instead of calling it refused.
  const bool openmp_inert =
      std::find(refused.begin(), refused.end(), "openmp") != refused.end() &&
      std::find(stage.compiler_flags.begin(), stage.compiler_flags.end(), "-fopenmp") == stage.compiler_flags.end();
  if (openmp_inert) refused.erase(std::find(refused.begin(), refused.end(), "openmp"));
  fields["forbids"] = (refused.empty() ? std::string("none of the techniques the stages know")
                                       : joined(technique_list(refused, stage), "; ")) +
                      (openmp_inert ? ". (OpenMP directives are ignored here, compiled without -fopenmp: they "
                                      "neither count nor parallelize)"
                                    : "");
  fields["includes"] = includes_words(problem, stage);
  fields["rules"] = rules_words(problem);
  fields["node"] = node_words(problem, in.nodes);
  fields["reward"] = "the reward of a correct candidate is " + in.reward_unit + ", timed at the shape above";
  fields["failures"] =
      "a candidate that does not compile, breaks the stage's or the sandbox's rules, differs from the reference "
      "beyond the tolerance at any checked shape (or gives NaN or Inf, or modifies its inputs), crashes, writes "
      "outside its buffers, or runs past the time limit earns a penalty instead, with a reason naming what failed";
  // No literal reasoning tag here: a query that still holds its prompt would open a section.
  fields["answer_format"] = std::string("answer with the complete source file in one fenced code block (```") +
                            (cuda ? "cuda" : "c") +
                            ") that defines `matmul`; your reasoning (in think tags), text outside the block and "
                            "other blocks that only build or call it are not judged, and two blocks that "
                            "define matmul make the answer a format error";
  return fields;
}

}  // namespace hpcreward::prompts
