#include "common/status.hpp"

namespace hpcreward {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::format_error: return "format_error";
    case Status::forbidden: return "forbidden";
    case Status::constraint_violation: return "constraint_violation";
    case Status::compile_error: return "compile_error";
    case Status::timeout: return "timeout";
    case Status::runtime_error: return "runtime_error";
    case Status::wrong_answer: return "wrong_answer";
  }
  return "unknown";
}

std::optional<Status> parse_status(std::string_view text) {
  for (Status status : kAllStatuses)
    if (to_string(status) == text) return status;
  return std::nullopt;
}

}  // namespace hpcreward
