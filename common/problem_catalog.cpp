#include "common/problem_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/builtin_catalogs.hpp"

namespace hpcreward {

namespace {

// Operands larger than this are refused at load: no rank could hold them with their copies.
constexpr double kMaxOperandBytes = 32.0 * (1ull << 30);

const std::set<std::string> kCatalogKeys = {"catalog", "description", "problems"};
const std::set<std::string> kProblemKeys = {"id",           "language",  "precision",         "shape",       "layout",
                                            "batch",        "check_shapes", "tolerance",      "element_tolerance",
                                            "accumulation", "description"};
// Batches beyond this are refused: the harness's own checks loop over them on the host.
constexpr int kMaxBatch = 65536;

class CatalogError {
 public:
  explicit CatalogError(std::string_view source) : source_(source) {}
  [[noreturn]] void fail(const std::string &where, const std::string &what) const {
    throw std::invalid_argument("problem catalog " + source_ + ": " + where + ": " + what);
  }

 private:
  std::string source_;
};

// The reward log keeps a problem id in 32 bytes (results/reward_row.hpp): a longer one would
// come back cut, and a resumed run would not know its rows.
constexpr std::size_t kMaxProblemIdBytes = 32, kMaxCatalogNameBytes = 64;

bool valid_id(const std::string &id, std::size_t max_bytes) {
  if (id.empty() || id.size() > max_bytes) return false;
  for (char c : id)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
          c == '_' || c == '.'))
      return false;
  return true;
}

std::string text_of(const nlohmann::json &value) { return value.dump(); }

Shape shape_from(const nlohmann::json &value, const CatalogError &error, const std::string &where) {
  if (!value.is_string()) error.fail(where, "must be a string \"MxNxK\" (m rows of A and C, n columns of B and C, k inner), not " + text_of(value));
  const std::optional<Shape> shape = parse_shape(value.get<std::string>());
  if (!shape) error.fail(where, text_of(value) + " is not \"MxNxK\" with positive sizes");
  return *shape;
}

double operand_bytes(const Shape &shape, Precision precision) {
  const double m = shape.m, n = shape.n, k = shape.k;
  return shape.batch * (m * k + k * n + m * n) * static_cast<double>(element_bytes(precision));
}

Problem problem_from(const nlohmann::json &entry, std::size_t index, const CatalogError &error) {
  std::string where = "problems[" + std::to_string(index) + "]";
  if (!entry.is_object()) error.fail(where, "must be an object with \"id\", \"language\", \"precision\", \"shape\"");
  if (entry.contains("id") && entry["id"].is_string()) where += " (\"" + entry["id"].get<std::string>() + "\")";
  for (const auto &[key, value] : entry.items())
    if (!kProblemKeys.count(key))
      error.fail(where, "unknown key \"" + key + "\"; a problem has id, language, precision, shape, and optionally "
                        "layout, batch, check_shapes, accumulation, tolerance, element_tolerance, description");
  for (const char *key : {"id", "language", "precision", "shape"})
    if (!entry.contains(key)) error.fail(where, std::string("missing \"") + key + "\"");

  Problem problem;
  const nlohmann::json &id = entry["id"];
  if (!id.is_string() || !valid_id(id.get<std::string>(), kMaxProblemIdBytes))
    error.fail(where + ".id", text_of(id) + " is not an id: 1 to 32 of a-z, 0-9, '-', '_', '.' (the log keeps 32)");
  problem.id = id.get<std::string>();

  const nlohmann::json &language = entry["language"];
  const std::optional<Language> parsed_language =
      language.is_string() ? parse_language(language.get<std::string>()) : std::nullopt;
  if (!parsed_language) error.fail(where + ".language", text_of(language) + " is not \"c\" or \"cuda\"");
  problem.language = *parsed_language;

  const nlohmann::json &precision = entry["precision"];
  const std::optional<Precision> parsed_precision =
      precision.is_string() ? parse_precision(precision.get<std::string>()) : std::nullopt;
  if (!parsed_precision)
    error.fail(where + ".precision", text_of(precision) + " is not \"f64\", \"f32\", \"f16\" or \"bf16\"");
  problem.precision = *parsed_precision;
  if ((problem.precision == Precision::f16 || problem.precision == Precision::bf16) && problem.language != Language::cuda)
    error.fail(where + ".precision", "\"" + std::string(to_string(problem.precision)) +
                                         "\" (16-bit operands and output, fp32 accumulation) is CUDA only");

  if (entry.contains("accumulation")) {
    const nlohmann::json &accumulation = entry["accumulation"];
    const std::optional<Accumulation> parsed =
        accumulation.is_string() ? parse_accumulation(accumulation.get<std::string>()) : std::nullopt;
    if (!parsed)
      error.fail(where + ".accumulation", text_of(accumulation) + " is not \"f16\" (an fp16 accumulator allowed) or "
                                          "\"f32\" (fp32 accumulation, the default)");
    if (problem.precision != Precision::f16 || problem.language != Language::cuda)
      error.fail(where + ".accumulation",
                 "is for CUDA f16 problems only (\"language\": \"cuda\", \"precision\": \"f16\"), whose accumulator may "
                 "be fp16 or fp32; a " + std::string(to_string(problem.language)) + " " +
                     std::string(to_string(problem.precision)) + " problem accumulates in " +
                     (problem.precision == Precision::f64 ? "fp64" : "fp32") + ": leave the key out");
    problem.accumulation = *parsed;
  }
  if (entry.contains("layout")) {
    const nlohmann::json &layout = entry["layout"];
    const std::optional<Layout> parsed = layout.is_string() ? parse_layout(layout.get<std::string>()) : std::nullopt;
    if (!parsed || parsed->batched)
      error.fail(where + ".layout", text_of(layout) + " is not \"nn\", \"tn\", \"nt\" or \"tt\" (t: that operand is "
                                    "given transposed; a batch is the \"batch\" key)");
    problem.layout = *parsed;
  }
  problem.nominal = shape_from(entry["shape"], error, where + ".shape");
  if (problem.nominal.batch != 1)
    error.fail(where + ".shape", "\"MxNxK\" without a batch; a batch count is the \"batch\" key");
  if (entry.contains("batch")) {
    const nlohmann::json &batch = entry["batch"];
    if (!batch.is_number_integer() || batch.get<long long>() < 1 || batch.get<long long>() > kMaxBatch)
      error.fail(where + ".batch", text_of(batch) + " is not a whole number from 1 to " + std::to_string(kMaxBatch));
    problem.layout.batched = true;
    problem.nominal.batch = static_cast<int>(batch.get<long long>());
  }
  if (operand_bytes(problem.nominal, problem.precision) > kMaxOperandBytes)
    error.fail(where + ".shape", to_string(problem.nominal) + " needs more than 32 GiB for A, B and C");

  if (entry.contains("check_shapes")) {
    const nlohmann::json &shapes = entry["check_shapes"];
    // An empty list: the nominal shape alone is verified, for a problem that is that one shape
    // (a catalog of per-shape kernels, as CUDA-L2's): a kernel may then be written for it.
    if (!shapes.is_array())
      error.fail(where + ".check_shapes", "must be a list of \"MxNxK\" ([]: the nominal shape alone; or leave it out: derived)");
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const std::string at = where + ".check_shapes[" + std::to_string(i) + "]";
      const Shape shape = shape_from(shapes[i], error, at);
      if (!problem.layout.batched && shape.batch != 1)
        error.fail(at, to_string(shape) + " has a batch, and the problem has no \"batch\" key");
      if (shape.batch > kMaxBatch) error.fail(at, "a batch of at most " + std::to_string(kMaxBatch));
      if (shape == problem.nominal)
        error.fail(at, "is the nominal shape; check shapes are there to catch code hard-wired to it");
      if (operand_bytes(shape, problem.precision) > kMaxOperandBytes)
        error.fail(at, to_string(shape) + " needs more than 32 GiB for A, B and C");
      problem.check_shapes.push_back(shape);
    }
  } else {
    problem.check_shapes = derived_check_shapes(problem.nominal, problem.layout);
  }

  auto positive = [&](const char *key, double derived) {
    if (!entry.contains(key)) return derived;
    const nlohmann::json &value = entry[key];
    if (!value.is_number() || !(value.get<double>() > 0) || !(value.get<double>() < 1))
      error.fail(where + "." + key, text_of(value) + " is not a number in (0, 1)");
    return value.get<double>();
  };
  problem.tolerance = positive("tolerance", derived_tolerance(problem.precision, problem.language, problem.nominal.k,
                                                              problem.accumulation));
  problem.element_tolerance =
      derived_element_tolerance(problem.precision, problem.language, problem.nominal.k, problem.accumulation);
  if (entry.contains("element_tolerance")) {
    if (problem.language != Language::cuda)
      error.fail(where + ".element_tolerance", "is for CUDA problems only (C problems have a normwise tolerance)");
    problem.element_tolerance = positive("element_tolerance", problem.element_tolerance);
  }
  if (entry.contains("description")) {
    if (!entry["description"].is_string()) error.fail(where + ".description", "must be a string");
    problem.description = entry["description"].get<std::string>();
  }
  return problem;
}

std::string read_file(const std::string &path) {
  std::ifstream file(path);
  if (!file)
    throw std::invalid_argument("cannot read the problem catalog " + path +
                                " (a file, or one of the built-in names: " + builtin_catalog_list() + ")");
  return std::string(std::istreambuf_iterator<char>(file), {});
}

std::unique_ptr<ProblemCatalog> &installed() {
  static std::unique_ptr<ProblemCatalog> catalog;
  return catalog;
}

const ProblemCatalog &default_catalog() {
  static const ProblemCatalog catalog = load_problem_catalog("default");
  return catalog;
}

}  // namespace

const Problem *ProblemCatalog::find(std::string_view id) const {
  for (const Problem &problem : problems)
    if (problem.id == id) return &problem;
  return nullptr;
}

std::string ProblemCatalog::ids() const {
  std::string ids;
  for (const Problem &problem : problems) ids += (ids.empty() ? "" : ", ") + problem.id;
  return ids;
}

ProblemCatalog parse_problem_catalog(std::string_view json, std::string_view source) {
  const CatalogError error(source);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error &parse) {
    error.fail("not JSON", parse.what());
  }
  if (!document.is_object()) error.fail("top level", "must be an object with \"catalog\" and \"problems\"");
  for (const auto &[key, value] : document.items())
    if (!kCatalogKeys.count(key))
      error.fail("top level", "unknown key \"" + key + "\"; a catalog has catalog, description, problems");
  if (!document.contains("catalog") || !document["catalog"].is_string() ||
      !valid_id(document["catalog"].get<std::string>(), kMaxCatalogNameBytes))
    error.fail("catalog", "the catalog's name is required: 1 to 64 of a-z, 0-9, '-', '_', '.'");
  if (!document.contains("problems") || !document["problems"].is_array() || document["problems"].empty())
    error.fail("problems", "must be a non-empty list of problems");

  ProblemCatalog catalog;
  catalog.name = document["catalog"].get<std::string>();
  catalog.source = std::string(source);
  catalog.json = std::string(json);
  std::set<std::string> ids;
  const nlohmann::json &problems = document["problems"];
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Problem problem = problem_from(problems[i], i, error);
    if (!ids.insert(problem.id).second)
      error.fail("problems[" + std::to_string(i) + "]", "id \"" + problem.id + "\" is defined twice");
    catalog.problems.push_back(std::move(problem));
  }
  return catalog;
}

ProblemCatalog load_problem_catalog(std::string_view name_or_path) {
  if (const std::optional<std::string_view> json = builtin_catalog_json(name_or_path))
    return parse_problem_catalog(*json, "built-in " + std::string(name_or_path));
  const std::string path(name_or_path);
  return parse_problem_catalog(read_file(path), path);
}

std::string builtin_catalog_list() {
  std::string names;
  for (const std::string &name : builtin_catalog_names()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::vector<Shape> derived_check_shapes(const Shape &nominal, const Layout &layout) {
  std::vector<Shape> shapes = {Shape{nominal.m + 1, nominal.n > 1 ? nominal.n - 1 : nominal.n + 1, nominal.k + 7},
                               Shape{31, 17, 23}};
  if (layout.batched) {
    shapes[0].batch = nominal.batch == 3 ? 4 : 3;
    shapes[1].batch = 2;
  }
  return shapes;
}

// C: relative to ||A||_F ||B||_F. CUDA, each element weighed by its scale
// (bench_node/measure/scaled_normwise.hpp): f64 1e-12 (two fp64 summation orders differ near
// 1e-15); f32 1.25e-3 admits TF32 operands, rounded (at most 3.4e-4) or truncated (at most
// 8.8e-4), and refuses bf16 ones (never under 1.78e-3: 400 seeds at 31 x 17 x 23, where a few
// products decide each element); bf16 6e-3 admits a bf16 output rounded to nearest or toward
// zero (about 1.7e-3 and 3.3e-3) and refuses a bf16 accumulator from k = 1024 (1.0e-2 there,
// 2.0e-2 at 4096: scaled_normwise_test.cpp).
// f16 with fp32 accumulation, 5.5e-4 (1.13 x 2^-11): C rounded to __half to nearest, as cuBLAS
// rounds it, reads 0.37 to 0.47 x 2^-11 (400 seeds at 31 x 17 x 23, and every shape of
// accumulation_test.cpp), 2.4 times inside; toward zero (__float2half_rz) 0.75 to 0.93, 1.2
// times inside; an fp16 accumulator (HMMA, rounded to nearest after every 16 products, as an
// H200 does: tests/gpu/hmma_rounding_probe.cu) reads 0.3 x 2^-11 sqrt(k / 16), 2.44 x 2^-11 at
// k = 1024: 2.2 times outside from k = 1024 on. Below k of about 500 no bound is 2 times from
// both (docs/reward-integrity.md, "Accumulation precision"). It was 2e-3, which fp16
// accumulation passed up to k of about 3,000.
// f16 with fp16 accumulation: the fp16 accumulator's own error scale, 2^-11 (1 + sqrt(k / 32))
// (fp16_accumulator_error: each of the k / 16 roundings at most 2^-11 of a running sum whose
// square grows as a random walk's, plus C's own rounding): HMMA with fp16 accumulators reads
// 0.37 of it at k = 1024 and 0.41 at 16384, rounded every 8 products 0.58, split-k with fp16
// partial sums less; fp8 operands (e4m3: 68 x 2^-11 at every k) fail it 2.9 times at k = 16384.
// Tensor cores accumulate fp32 by truncation, one add per mma of 4 to 16 products, so a kernel
// that keeps one accumulator over a long k drifts by up to k / 4 ulps of its running sum: from k
// of about 80,000 (37,000 for f16's tighter bound) that drift, not the operands, decides, and
// the bounds grow with it (on an H200, honest TF32 kernels read 1.6e-3 at k = 524288 and 3.6e-3
// at k = 1048576). There bf16 operands (about 2e-3) are no longer told from fp32 ones.
constexpr double kFp32Ulp = 0x1p-24;

double fp16_accumulator_error(double k) { return 0x1p-11 * (1 + std::sqrt(k / 32)); }

double derived_tolerance(Precision precision, Language language, int k, Accumulation accumulation) {
  if (language == Language::c) return precision == Precision::f64 ? 1e-10 : 1e-4;
  if (precision == Precision::f64) return 1e-12;
  if (precision == Precision::f16 && accumulation == Accumulation::f16) return fp16_accumulator_error(k);
  const double base = precision == Precision::f32 ? 1.25e-3 : precision == Precision::f16 ? 5.5e-4 : 6e-3;
  return std::max(base, 0.25 * k * kFp32Ulp);
}

// The per-element bound, relative to (|A||B|)_ij: 1e-2 (fp32 accumulation's worst element at
// most 1.5 x 2^-11 = 7e-4 there, simulated); with fp16 accumulation 4e-3: an fp16
// accumulator's largest element reads at most 1.4 x 2^-11 = 7e-4 at any k (its error relative to
// (|A||B|)_ij does not grow with k: the error grows as sqrt(k), (|A||B|)_ij as k and a row's
// root-sum-square as sqrt(k)), fp8 operands up to 77 x 2^-11 at 31 x 17 x 23; tighter, it
// refuses more of the single wrong elements that the normwise figures cannot see in a large C.
double derived_element_tolerance(Precision precision, Language language, int k, Accumulation accumulation) {
  if (language == Language::c) return 0;
  if (precision == Precision::f64) return 1e-10;
  if (precision == Precision::f16 && accumulation == Accumulation::f16) return 4e-3;
  return std::max(1e-2, 0.5 * k * kFp32Ulp);
}

void install_problem_catalog(ProblemCatalog catalog) {
  installed() = std::make_unique<ProblemCatalog>(std::move(catalog));
}

const ProblemCatalog &installed_problem_catalog() {
  return installed() ? *installed() : default_catalog();
}

const Problem *find_problem(std::string_view id) { return installed_problem_catalog().find(id); }

std::string known_problem_ids() { return installed_problem_catalog().ids(); }

const std::vector<Problem> &builtin_problems() { return default_catalog().problems; }

}  // namespace hpcreward
