#include "coordinator/scoring/measurement_cache.hpp"

#include <string_view>

#include "common/node_failure.hpp"
#include "coordinator/rewards/sqd_state.hpp"
#include "prompts/model_feedback.hpp"
#include "results/row_fields.hpp"
#include "results/utf8_truncate.hpp"

namespace hpcreward {
namespace {

// The size of a string column of /rewards, so an entry keeps what a resumed run would read.
std::size_t column_bytes(std::string_view name) {
  for (const RowField &field : kRowFields)
    if (const auto *column = std::get_if<StringField>(&field); column && column->name == name) return column->size;
  return 0;
}

}  // namespace

bool MeasurementCache::reusable(const Measurement &measurement) {
  switch (measurement.status) {
    case Status::compile_error:
      return !node_failure::decided_by_node(measurement.reason);
    case Status::ok:
    case Status::format_error:
    case Status::forbidden:
    case Status::constraint_violation:
    case Status::wrong_answer:
      return true;
    case Status::timeout:
    case Status::runtime_error:
      return false;
  }
  return false;
}

const CachedMeasurement *MeasurementCache::find(const std::string &key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return &it->second->second;
}

void MeasurementCache::remember(const std::string &key, CachedMeasurement entry) {
  if (capacity_ == 0 || !reusable(entry.measurement)) return;
  // The log keeps 256 bytes of a reason and no evidence: an entry keeps no more, so its
  // size is bounded and a resumed run's entries equal the live ones. Its feedback, made from
  // the whole reason, is whole (512 bytes at most, as the log keeps it).
  static const std::size_t reason_bytes = column_bytes("reason");
  entry.measurement.reason = std::string(truncate_utf8(entry.measurement.reason, reason_bytes));
  entry.measurement.techniques.evidence.clear();
  if (auto it = by_key_.find(key); it != by_key_.end()) {
    it->second->second = std::move(entry);
    entries_.splice(entries_.begin(), entries_, it->second);
    return;
  }
  if (entries_.size() == capacity_) {
    by_key_.erase(entries_.back().first);
    entries_.pop_back();
  }
  entries_.emplace_front(key, std::move(entry));
  by_key_.emplace(key, entries_.begin());
}

void MeasurementCache::recall(const std::vector<RewardRow> &rows) {
  for (const RewardRow &row : rows) {
    if (row.measurement_key.empty()) continue;  // decided by the coordinator, or a log before schema 5
    if (!row.measured_as.empty()) {
      find(row.measurement_key);
      continue;
    }
    std::optional<Measurement> measurement = measurement_from_row(row);
    if (!measurement) continue;
    remember(row.measurement_key, {std::move(*measurement), row.candidate_id, row.batch_id, row.rank, row.host,
                                   row.device, row.seed, std::string(prompts::without_judged_part(row.feedback))});
  }
}

std::optional<Measurement> measurement_from_row(const RewardRow &row) {
  std::optional<Status> status = parse_status(row.status);
  if (!status) return std::nullopt;
  Measurement m;
  m.status = *status;
  m.reason = row.reason;
  m.gflops = row.gflops;
  m.median_s = row.median_s;
  m.min_s = row.min_s;
  m.iqr_s = row.iqr_s;
  m.cv = row.cv;
  m.reps = row.reps;
  m.max_error = row.max_error;
  m.compile_s = row.compile_s;
  m.verify_s = row.verify_s;
  m.time_s = row.time_s;
  m.techniques = summary_from_row(row);
  return m;
}

}  // namespace hpcreward
