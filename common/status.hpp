#pragma once
// The outcome of scoring one candidate (docs/design.md "Statuses and default rewards").
// Candidate failures are values: a status plus a human-readable reason.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward {

enum class Status {
  ok,
  format_error,
  forbidden,
  constraint_violation,
  compile_error,
  timeout,
  runtime_error,
  wrong_answer,
};

inline constexpr std::array kAllStatuses = {
    Status::ok,      Status::format_error,  Status::forbidden,    Status::constraint_violation,
    Status::compile_error, Status::timeout, Status::runtime_error, Status::wrong_answer,
};

std::string_view to_string(Status status);
std::optional<Status> parse_status(std::string_view text);

// A failure with its reason; what every stage of the pipeline returns instead of throwing.
struct Verdict {
  Status status = Status::ok;
  std::string reason;
  bool ok() const { return status == Status::ok; }
};

}  // namespace hpcreward
