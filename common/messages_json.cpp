#include "common/messages_json.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace hpcreward {

using nlohmann::json;

void to_json(json &out, const Shape &shape) { out = to_string(shape); }

void from_json(const json &in, Shape &shape) {
  auto parsed = parse_shape(in.get<std::string>());
  if (!parsed) throw std::invalid_argument("bad shape: " + in.dump());
  shape = *parsed;
}

void to_json(json &out, const Problem &problem) {
  out = json{{"id", problem.id},
             {"precision", to_string(problem.precision)},
             {"language", to_string(problem.language)},
             {"layout", to_string(problem.layout)},
             {"nominal", problem.nominal},
             {"check_shapes", problem.check_shapes},
             {"tolerance", problem.tolerance},
             {"element_tolerance", problem.element_tolerance}};
  if (problem.precision == Precision::f16) out["accumulation"] = to_string(problem.accumulation);
  if (!problem.description.empty()) out["description"] = problem.description;
  out["abi"] = problem_abi(problem);
}

void from_json(const json &in, Problem &problem) {
  problem.id = in.at("id").get<std::string>();
  auto precision = parse_precision(in.at("precision").get<std::string>());
  if (!precision) throw std::invalid_argument("bad precision: " + in.at("precision").dump());
  problem.precision = *precision;
  auto language = parse_language(in.value("language", std::string("c")));
  if (!language) throw std::invalid_argument("bad language: " + in.at("language").dump());
  problem.language = *language;
  auto layout = parse_layout(in.value("layout", std::string("nn")));
  if (!layout) throw std::invalid_argument("bad layout: " + in.at("layout").dump());
  problem.layout = *layout;
  problem.nominal = in.at("nominal").get<Shape>();
  problem.check_shapes = in.at("check_shapes").get<std::vector<Shape>>();
  problem.tolerance = in.at("tolerance").get<double>();
  problem.element_tolerance = in.value("element_tolerance", 0.0);
  auto accumulation = parse_accumulation(in.value("accumulation", std::string("f32")));
  if (!accumulation) throw std::invalid_argument("bad accumulation: " + in.at("accumulation").dump());
  problem.accumulation = *accumulation;
  problem.description = in.value("description", std::string());
}

void to_json(json &out, const TechniqueSummary &summary) {
  out = json{{"detected", summary.detected},     {"techniques", summary.techniques},
             {"loop_order", summary.loop_order}, {"tile_sizes", summary.tile_sizes},
             {"evidence", summary.evidence}};
}

void from_json(const json &in, TechniqueSummary &summary) {
  summary.detected = in.at("detected").get<bool>();
  summary.techniques = in.at("techniques").get<std::vector<std::string>>();
  summary.loop_order = in.at("loop_order").get<std::string>();
  summary.tile_sizes = in.at("tile_sizes").get<std::vector<int>>();
  summary.evidence = in.at("evidence").get<std::string>();
}

namespace {

// JSON has no infinity or NaN (nlohmann writes null, which reads back as no number): a wrong
// answer's error can be any of them, so a measurement's numbers that are not finite travel as
// the text "inf", "-inf" or "nan".
json number_json(double value) {
  if (std::isfinite(value)) return value;
  return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
}

double number_from(const json &in) {
  if (in.is_number()) return in.get<double>();
  const std::string text = in.get<std::string>();  // throws for anything but a string
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  throw std::invalid_argument("not a number: " + in.dump());
}

}  // namespace

void to_json(json &out, const Measurement &m) {
  out = json{{"status", to_string(m.status)},      {"reason", m.reason},
             {"gflops", number_json(m.gflops)},      {"median_s", number_json(m.median_s)},
             {"min_s", number_json(m.min_s)},        {"iqr_s", number_json(m.iqr_s)},
             {"cv", number_json(m.cv)},              {"reps", m.reps},
             {"max_error", number_json(m.max_error)}, {"compile_s", number_json(m.compile_s)},
             {"verify_s", number_json(m.verify_s)},  {"time_s", number_json(m.time_s)},
             {"techniques", m.techniques},
             {"yardsticks", {{"openblas", m.yardsticks.openblas}, {"cublas", m.yardsticks.cublas},
                             {"cublaslt", m.yardsticks.cublaslt}}}};
}

void from_json(const json &in, Measurement &m) {
  auto status = parse_status(in.at("status").get<std::string>());
  if (!status) throw std::invalid_argument("bad status: " + in.at("status").dump());
  m.status = *status;
  m.reason = in.at("reason").get<std::string>();
  m.gflops = number_from(in.at("gflops"));
  m.median_s = number_from(in.at("median_s"));
  m.min_s = number_from(in.at("min_s"));
  m.iqr_s = number_from(in.at("iqr_s"));
  m.cv = number_from(in.at("cv"));
  m.reps = in.at("reps").get<int>();
  m.max_error = number_from(in.at("max_error"));
  m.compile_s = number_from(in.at("compile_s"));
  m.verify_s = number_from(in.at("verify_s"));
  m.time_s = number_from(in.at("time_s"));
  m.techniques = in.at("techniques").get<TechniqueSummary>();
  if (in.contains("yardsticks")) {  // a runner's measurement has none: its rank adds them
    const json &yardsticks = in.at("yardsticks");
    m.yardsticks.openblas = yardsticks.value("openblas", 0.0);
    m.yardsticks.cublas = yardsticks.value("cublas", 0.0);
    m.yardsticks.cublaslt = yardsticks.value("cublaslt", 0.0);
  }
}

void to_json(json &out, const RankInfo &info) {
  out = json{{"rank", info.rank}, {"host", info.host}, {"cpu_model", info.cpu_model}, {"cores", info.cores},
             {"compiler_version", info.compiler_version}, {"blas_version", info.blas_version},
             {"peak_gflops_f64", info.peak_gflops_f64}, {"peak_gflops_f32", info.peak_gflops_f32},
             {"avx512", info.avx512}, {"kind", info.kind}, {"slots", info.slots},
             {"peak_gflops_f16", info.peak_gflops_f16}, {"peak_gflops_bf16", info.peak_gflops_bf16}, {"sgemm_fp32_gflops", info.sgemm_fp32_gflops},
             {"task_limit_s", info.task_limit_s},
             {"core_sharing_hidden", info.core_sharing_hidden}, {"blas_warning", info.blas_warning},
             {"null_measurement", info.null_measurement}, {"cute", info.cute}};
  json gpu;
  to_json(gpu, info.gpu);
  out["gpu"] = std::move(gpu);
}

void to_json(json &out, const GpuInfo &gpu) {
  out = json{{"ordinal", gpu.ordinal},       {"name", gpu.name},
             {"uuid", gpu.uuid},             {"compute_capability", gpu.compute_capability},
             {"arch", gpu.arch},             {"memory_bytes", gpu.memory_bytes},
             {"l2_bytes", gpu.l2_bytes},     {"multiprocessors", gpu.multiprocessors},
             {"driver_version", gpu.driver_version}, {"runtime_version", gpu.runtime_version},
             {"connections", gpu.connections}};
}

void from_json(const json &in, GpuInfo &gpu) {
  gpu.ordinal = in.value("ordinal", -1);
  gpu.name = in.value("name", std::string());
  gpu.uuid = in.value("uuid", std::string());
  gpu.compute_capability = in.value("compute_capability", std::string());
  gpu.arch = in.value("arch", std::string());
  gpu.memory_bytes = in.value("memory_bytes", std::uint64_t{0});
  gpu.l2_bytes = in.value("l2_bytes", std::uint64_t{0});
  gpu.multiprocessors = in.value("multiprocessors", 0);
  gpu.driver_version = in.value("driver_version", std::string());
  gpu.runtime_version = in.value("runtime_version", std::string());
  gpu.connections = in.value("connections", 0);
}

void from_json(const json &in, RankInfo &info) {
  info.rank = in.at("rank").get<int>();
  info.host = in.at("host").get<std::string>();
  info.cpu_model = in.value("cpu_model", std::string());
  info.cores = in.at("cores").get<int>();
  info.compiler_version = in.at("compiler_version").get<std::string>();
  info.blas_version = in.at("blas_version").get<std::string>();
  info.peak_gflops_f64 = in.value("peak_gflops_f64", 0.0);
  info.peak_gflops_f32 = in.value("peak_gflops_f32", 0.0);
  info.avx512 = in.value("avx512", false);
  info.kind = in.value("kind", std::string("cpu"));
  info.slots = in.value("slots", 1);
  info.peak_gflops_f16 = in.value("peak_gflops_f16", 0.0);
  info.peak_gflops_bf16 = in.value("peak_gflops_bf16", 0.0);
  info.sgemm_fp32_gflops = in.value("sgemm_fp32_gflops", 0.0);
  info.task_limit_s = in.value("task_limit_s", 0.0);
  info.core_sharing_hidden = in.value("core_sharing_hidden", std::string());
  info.blas_warning = in.value("blas_warning", std::string());
  info.null_measurement = in.value("null_measurement", false);
  info.cute = in.value("cute", std::string());
  if (in.contains("gpu")) info.gpu = in.at("gpu").get<GpuInfo>();
}

}  // namespace hpcreward
