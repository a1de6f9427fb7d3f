#pragma once
// A run's problems as configuration: a JSON catalog (docs/problems.md), validated with errors
// that name the entry and the key, with check shapes and tolerances derived from each
// problem's shape, precision and language unless the entry gives its own. Built-in catalogs
// (common/problems/*.json) are compiled in and chosen by name; `default` holds the 15
// problems every run knew before catalogs.
//
// The coordinator installs its run's catalog at start, before any thread looks a problem up;
// every find_problem after that reads it. Benchmark ranks need none: a task carries its
// problem whole (messages.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/problem.hpp"

namespace hpcreward {

struct ProblemCatalog {
  std::string name;    // the catalog's own "catalog" key
  std::string source;  // "built-in NAME" or the file's path, for messages and provenance
  std::string json;    // its text, for the log's provenance
  std::vector<Problem> problems;

  const Problem *find(std::string_view id) const;
  std::string ids() const;  // comma-separated, for error messages
};

// Throws std::invalid_argument naming `source`, the entry (by index and id) and the key.
ProblemCatalog parse_problem_catalog(std::string_view json, std::string_view source);

// A name of a built-in catalog (builtin_catalogs.hpp), or a file's path (a name wins;
// "./NAME" reads a file).
ProblemCatalog load_problem_catalog(std::string_view name_or_path);
std::string builtin_catalog_list();  // the built-in catalogs' names, comma-separated, for messages

// What a problem gets unless its entry says otherwise: the nominal shape plus one and minus
// one (m + 1, n - 1, k + 7; n + 1 where n is 1), which no tile size divides when the nominal
// one does, and the tiny 31 x 17 x 23; batched, in batches of 3 (4 where the nominal batch is
// 3) and 2, which catch a kernel hard-wired to the nominal batch count.
std::vector<Shape> derived_check_shapes(const Shape &nominal, const Layout &layout = {});
// The untimed checks' tolerances (problem.hpp) for a precision, language and inner dimension:
// C normwise relative to ||A|| ||B||, CUDA normwise with every element weighed by its scale,
// plus the per-element bound (0 for C problems); for CUDA f32 and f16 they grow with k where
// fp32 accumulation's drift exceeds the operands' rounding (problem_catalog.cpp). The timed
// residual bound derives from k as well (bench_node/measure/residual_bound.hpp).
// CUDA f16 problems have one pair for fp32 accumulation and one for fp16 accumulation.
double derived_tolerance(Precision precision, Language language, int k,
                         Accumulation accumulation = Accumulation::f32);
double derived_element_tolerance(Precision precision, Language language, int k,
                                 Accumulation accumulation = Accumulation::f32);
// The error scale of an fp16 accumulator over k products in units of C's scale, 2^-11 (1 +
// sqrt(k / 32)): an HMMA with fp16 accumulators rounds its running sum once per mma step of
// 16 products, each rounding at most 2^-11 of a sum whose square grows as a random walk's
// (k / 16 of them, their squares adding up to k / 32 of the final one's), then C is that sum.
// The fp16-accumulation problems' normwise tolerance and the error scale of their timed
// residual bound (bench_node/measure/residual_bound.hpp).
double fp16_accumulator_error(double k);

// The catalog find_problem reads: the built-in default until a program installs another.
void install_problem_catalog(ProblemCatalog catalog);
const ProblemCatalog &installed_problem_catalog();

const Problem *find_problem(std::string_view id);
std::string known_problem_ids();
// The default catalog's problems (the 15 of before), whatever is installed.
const std::vector<Problem> &builtin_problems();

}  // namespace hpcreward
