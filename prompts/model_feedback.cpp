#include "prompts/model_feedback.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <vector>

#include "prompts/prompt_fields.hpp"

namespace hpcreward::prompts {

namespace {

std::string number(double value, const char *format) {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// Cut at `limit` bytes on a UTF-8 boundary, with an ellipsis.
std::string bounded(std::string text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "...";
}

std::string shapes_text(const Problem &problem) {
  std::string text = to_string(problem.nominal);
  for (const Shape &shape : problem.check_shapes) text += ", " + to_string(shape);
  return text;
}

std::string names(const std::vector<std::string> &list) {
  std::string out;
  for (const std::string &name : list) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

std::string ok_feedback(const FeedbackInputs &in) {
  std::string text = "Correct at every checked shape. " + number(in.gflops, "%.4g") + " GFLOPS";
  if (in.problem) text += " at " + to_string(in.problem->nominal);
  const double best = in.yardsticks.best();
  if (best > 0) {
    const char *library = best == in.yardsticks.openblas ? "OpenBLAS" : best == in.yardsticks.cublaslt ? "cuBLASLt"
                                                                                                       : "cuBLAS";
    text += ", " + number(100 * in.gflops / best, "%.3g") + "% of " + library + " (" + number(best, "%.4g") +
            " GFLOPS) on the same hardware";
  }
  const bool none = in.techniques.empty() || in.techniques == "plain";
  text += ". Techniques detected: " + (none ? std::string("none") : std::string(in.techniques));
  if (!in.loop_order.empty()) text += ", loop order " + std::string(in.loop_order);
  if (!in.tile_sizes.empty()) text += ", tiles " + std::string(in.tile_sizes);
  return text + ".";
}

std::string stage_rule_feedback(const FeedbackInputs &in, const std::string &reason) {
  std::string text = "Refused by the rules of stage " + (in.stage ? in.stage->name : std::string("?")) + ": " + reason + ".";
  if (!in.stage) return text;
  if (!in.stage->techniques_required.empty()) {
    text += " It requires";
    for (const std::string &name : in.stage->techniques_required) text += " " + technique_words(name) + ";";
    text.back() = '.';
  }
  return text + " It allows: " + names(in.stage->techniques_allowed) + ".";
}

// An fp32-accumulation f16 problem failed at k >= 256 by an error of rounding's size (within 32
// times the tolerance): fp16 accumulators give errors like that from there on (below, they are
// as accurate as C's own rounding), so say where the precision must be kept. A larger error is
// a bug of another kind, and gets no such word.
std::string accumulation_hint(const Problem &problem, const std::string &reason) {
  if (problem.precision != Precision::f16 || problem.accumulation != Accumulation::f32) return "";
  std::smatch match;
  if (!std::regex_search(reason, match,
                         std::regex(R"(relative error ([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?) exceeds )"
                                    R"(([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?))")))
    return "";
  const double error = std::strtod(match[1].str().c_str(), nullptr);
  const double tolerance = std::strtod(match[2].str().c_str(), nullptr);
  if (!(tolerance > 0 && error <= 32 * tolerance)) return "";
  std::smatch at;  // the shape it failed at, where the reason names it
  const int k = std::regex_search(reason, at, std::regex(R"( at (?:[0-9]+\*)?[0-9]+x[0-9]+x([0-9]{1,9}))"))
                    ? std::stoi(at[1].str())
                    : problem.nominal.k;
  if (k < 256) return "";
  return " An error of this size is what fp16 accumulation gives at k = " + std::to_string(k) +
         ": this problem accumulates in fp32, so keep the MMA's accumulators and any partial sums in float.";
}

std::string timeout_feedback(const std::string &reason) {
  std::smatch match;
  if (std::regex_search(reason, match, std::regex(R"(within ([0-9.]+) s)")))
    return "Too slow: a call did not return within " + number(std::stod(match[1].str()), "%.3g") +
           " s, this problem's time limit on this hardware (it scales with the problem's size and the "
           "hardware's speed).";
  return "Too slow: " + reason + ".";
}

}  // namespace

std::string scrubbed(std::string_view reason) {
  std::string text(reason);
  static const std::regex kPath(R"((?:/[A-Za-z0-9._+@-]+)+/([A-Za-z0-9._+@-]+))");
  static const std::regex kAddress(R"(0x[0-9a-fA-F]{6,})");
  static const std::regex kPid(R"(\b(pid|PID) [0-9]+)");
  static const std::regex kSeed(R"(\bseeds? (0x)?[0-9a-fA-F]+)");
  static const std::regex kOption(R"(\s*\(?--[a-z][a-z0-9-]*( [^ ,;)]+)?\)?)");
  text = std::regex_replace(text, kPath, "$1");
  text = std::regex_replace(text, kAddress, "an address");
  text = std::regex_replace(text, kPid, "a process");
  text = std::regex_replace(text, kSeed, "a secret seed");
  text = std::regex_replace(text, kOption, "");
  while (!text.empty() && (text.back() == ' ' || text.back() == '.' || text.back() == '\n')) text.pop_back();
  return text;
}

std::string model_feedback(const FeedbackInputs &in) {
  const std::string reason = scrubbed(in.reason);
  std::string text;
  if (in.status == "ok") {
    text = ok_feedback(in);
  } else if (in.status == "compile_error") {
    static const std::regex kCompilerFailed(R"(^compiler failed \(exit [0-9]+\): )");
    text = "It did not compile: " + std::regex_replace(reason, kCompilerFailed, "") + ".";
    if (in.stage) {
      std::string flags;
      for (const std::string &flag : in.stage->compiler_flags) flags += (flags.empty() ? "" : " ") + flag;
      text += " Stage " + in.stage->name + " compiles with " + (flags.empty() ? "the defaults" : flags) + ".";
    }
  } else if (in.status == "constraint_violation") {
    text = stage_rule_feedback(in, reason);
  } else if (in.status == "forbidden") {
    text = "Refused, not run: " + reason + ".";
  } else if (in.status == "wrong_answer") {
    text = "Wrong answer: " + reason + ".";
    if (in.problem)
      text += " Checked shapes (m x n x k): " + shapes_text(*in.problem) + "; C holds NaN on entry and every element "
              "must be written; A and B must not change." + accumulation_hint(*in.problem, reason);
  } else if (in.status == "runtime_error") {
    text = "It failed while running: " + reason + ".";
    if (in.problem)
      text += " Read the sizes from the arguments (checked at " + shapes_text(*in.problem) +
              "), write only inside C, never A or B.";
  } else if (in.status == "timeout") {
    text = timeout_feedback(reason);
  } else if (in.status == "format_error") {
    text = "Not scored: " + reason + ". Answer with the whole source file in one fenced code block that defines matmul.";
  } else {
    text = std::string(in.status) + ": " + reason + ".";
  }
  return bounded(std::move(text), kMaxFeedbackBytes);
}

namespace {
constexpr std::string_view kJudgedOpening = "Judged ";
constexpr std::string_view kJudgedEnd = ". ";
}  // namespace

std::string with_judged_part(std::string_view judged, std::string_view feedback) {
  if (judged.empty()) return std::string(feedback);
  std::string note(judged.substr(0, kMaxFeedbackBytes / 2));
  std::replace(note.begin(), note.end(), '.', ',');  // its first full stop is where it ends
  note = std::string(kJudgedOpening) + note + std::string(kJudgedEnd);
  return note + bounded(std::string(feedback), kMaxFeedbackBytes - note.size());
}

std::string_view without_judged_part(std::string_view feedback) {
  if (!feedback.starts_with(kJudgedOpening)) return feedback;
  const std::size_t end = feedback.find(kJudgedEnd);
  return end == std::string_view::npos ? feedback : feedback.substr(end + kJudgedEnd.size());
}

}  // namespace hpcreward::prompts
