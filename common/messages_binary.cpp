#include "common/messages_binary.hpp"

namespace hpcreward {
namespace {

constexpr char kMagic0 = 'H';
constexpr char kMagic1 = 'R';
constexpr char kTaskKind = 'T';
constexpr char kResultKind = 'R';

const char *kind_name(char kind) { return kind == kTaskKind ? "task" : "result"; }

void write_header(ByteWriter &out, char kind) {
  out.u8(static_cast<std::uint8_t>(kMagic0));
  out.u8(static_cast<std::uint8_t>(kMagic1));
  out.u8(kBinaryMessageVersion);
  out.u8(static_cast<std::uint8_t>(kind));
}

void read_header(ByteReader &in, char kind) {
  const char magic0 = static_cast<char>(in.u8("magic"));
  const char magic1 = static_cast<char>(in.u8("magic"));
  if (magic0 != kMagic0 || magic1 != kMagic1)
    throw MessageDecodeError(std::string("binary ") + kind_name(kind) +
                             ": not an hpcreward binary message (no 'HR' magic; a JSON text from an older build?)");
  const std::uint8_t version = in.u8("version");
  if (version != kBinaryMessageVersion)
    throw MessageDecodeError(std::string("binary ") + kind_name(kind) + ": format version " + std::to_string(version) +
                             ", this build reads version " + std::to_string(kBinaryMessageVersion) +
                             " (run the same hpcreward build on every rank)");
  const char got = static_cast<char>(in.u8("kind"));
  if (got != kind)
    throw MessageDecodeError(std::string("binary message: expected a ") + kind_name(kind) + " ('" + kind +
                             "'), got kind byte " + std::to_string(static_cast<unsigned char>(got)));
}

// An enum by name, refused with the field and the text when the name is unknown.
template <typename Parse>
auto read_enum(ByteReader &in, const char *field, Parse parse) {
  const std::size_t at = in.offset();
  const std::string text = in.string(field);
  auto value = parse(text);
  if (!value)
    throw MessageDecodeError("binary message: " + std::string(field) + " at offset " + std::to_string(at) +
                             " is \"" + text + "\", not a known name");
  return *value;
}

void write_shape(ByteWriter &out, const Shape &shape) {
  out.i32(shape.m);
  out.i32(shape.n);
  out.i32(shape.k);
  out.i32(shape.batch);
}

Shape read_shape(ByteReader &in) {
  Shape shape;
  shape.m = in.i32("shape m");
  shape.n = in.i32("shape n");
  shape.k = in.i32("shape k");
  shape.batch = in.i32("shape batch");
  return shape;
}

void write_problem(ByteWriter &out, const Problem &problem) {
  out.string(problem.id);
  out.string(to_string(problem.precision));
  out.string(to_string(problem.language));
  out.string(to_string(problem.layout));
  write_shape(out, problem.nominal);
  out.count(problem.check_shapes.size());
  for (const Shape &shape : problem.check_shapes) write_shape(out, shape);
  out.f64(problem.tolerance);
  out.f64(problem.element_tolerance);
  out.string(to_string(problem.accumulation));
}

Problem read_problem(ByteReader &in) {
  Problem problem;
  problem.id = in.string("problem id");
  problem.precision = read_enum(in, "precision", parse_precision);
  problem.language = read_enum(in, "language", parse_language);
  problem.layout = read_enum(in, "layout", parse_layout);
  problem.nominal = read_shape(in);
  problem.check_shapes.resize(in.count("check_shapes", 12));
  for (Shape &shape : problem.check_shapes) shape = read_shape(in);
  problem.tolerance = in.f64("tolerance");
  problem.element_tolerance = in.f64("element_tolerance");
  problem.accumulation = read_enum(in, "accumulation", parse_accumulation);
  return problem;
}

void write_techniques(ByteWriter &out, const TechniqueSummary &summary) {
  out.boolean(summary.detected);
  out.strings(summary.techniques);
  out.string(summary.loop_order);
  out.count(summary.tile_sizes.size());
  for (int size : summary.tile_sizes) out.i32(size);
  out.string(summary.evidence);
}

TechniqueSummary read_techniques(ByteReader &in) {
  TechniqueSummary summary;
  summary.detected = in.boolean("techniques detected");
  summary.techniques = in.strings("techniques");
  summary.loop_order = in.string("loop_order");
  summary.tile_sizes.resize(in.count("tile_sizes", 4));
  for (int &size : summary.tile_sizes) size = in.i32("tile size");
  summary.evidence = in.string("evidence");
  return summary;
}

void write_measurement(ByteWriter &out, const Measurement &m) {
  out.string(to_string(m.status));
  out.string(m.reason);
  out.f64(m.gflops);
  out.f64(m.median_s);
  out.f64(m.min_s);
  out.f64(m.iqr_s);
  out.f64(m.cv);
  out.i32(m.reps);
  out.f64(m.max_error);
  out.f64(m.compile_s);
  out.f64(m.verify_s);
  out.f64(m.time_s);
  write_techniques(out, m.techniques);
  out.f64(m.yardsticks.openblas);
  out.f64(m.yardsticks.cublas);
  out.f64(m.yardsticks.cublaslt);
}

Measurement read_measurement(ByteReader &in) {
  Measurement m;
  m.status = read_enum(in, "status", parse_status);
  m.reason = in.string("reason");
  m.gflops = in.f64("gflops");
  m.median_s = in.f64("median_s");
  m.min_s = in.f64("min_s");
  m.iqr_s = in.f64("iqr_s");
  m.cv = in.f64("cv");
  m.reps = in.i32("reps");
  m.max_error = in.f64("max_error");
  m.compile_s = in.f64("compile_s");
  m.verify_s = in.f64("verify_s");
  m.time_s = in.f64("time_s");
  m.techniques = read_techniques(in);
  m.yardsticks.openblas = in.f64("yardstick openblas");
  m.yardsticks.cublas = in.f64("yardstick cublas");
  m.yardsticks.cublaslt = in.f64("yardstick cublaslt");
  return m;
}

}  // namespace

std::string encode_task(const BenchTask &task) {
  ByteWriter out;
  out.reserve(256 + task.source.size());  // the source is nearly all of it
  write_header(out, kTaskKind);
  out.i64(task.sequence);
  out.string(task.candidate_id);
  write_problem(out, task.problem);
  out.string(task.stage);
  out.strings(task.compiler_flags);
  out.strings(task.techniques_allowed);
  out.strings(task.techniques_required);
  out.strings(task.libraries);
  out.string(task.source);
  out.u64(task.seed);
  return out.take();
}

BenchTask decode_task(std::string_view bytes) {
  ByteReader in(bytes);
  read_header(in, kTaskKind);
  BenchTask task;
  task.sequence = in.i64("sequence");
  task.candidate_id = in.string("candidate_id");
  task.problem = read_problem(in);
  task.stage = in.string("stage");
  task.compiler_flags = in.strings("compiler_flags");
  task.techniques_allowed = in.strings("techniques_allowed");
  task.techniques_required = in.strings("techniques_required");
  task.libraries = in.strings("libraries");
  task.source = in.string("source");
  task.seed = in.u64("seed");
  in.expect_end("task");
  return task;
}

std::string encode_result(const BenchResult &result) {
  ByteWriter out;
  out.reserve(256 + result.measurement.reason.size() + result.measurement.techniques.evidence.size());
  write_header(out, kResultKind);
  out.i64(result.sequence);
  write_measurement(out, result.measurement);
  out.i32(result.rank);
  out.string(result.host);
  out.string(result.device);
  return out.take();
}

BenchResult decode_result(std::string_view bytes) {
  ByteReader in(bytes);
  read_header(in, kResultKind);
  BenchResult result;
  result.sequence = in.i64("sequence");
  result.measurement = read_measurement(in);
  result.rank = in.i32("rank");
  result.host = in.string("host");
  result.device = in.string("device");
  in.expect_end("result");
  return result;
}

std::optional<std::int64_t> peek_task_sequence(std::string_view bytes) {
  try {
    ByteReader in(bytes);
    read_header(in, kTaskKind);
    return in.i64("sequence");
  } catch (const MessageDecodeError &) {
    return std::nullopt;
  }
}

}  // namespace hpcreward
