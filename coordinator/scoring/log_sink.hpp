#pragma once
// RowSink onto the HDF5 reward log.
#include "coordinator/scoring/row_sink.hpp"
#include "results/reward_log.hpp"

namespace hpcreward {

class LogSink : public RowSink {
 public:
  explicit LogSink(RewardLogWriter &writer) : writer_(writer) {}
  void append(const RewardRow &row, std::string_view source) override { writer_.append(row, source); }
  void append_event(const StageEventRecord &event) override { writer_.append_event(event); }
  void append_archive(const ArchiveRecord &record) override { writer_.append_archive(record); }
  void append_rank_event(const RankEventRecord &event) override { writer_.append_rank_event(event); }
  void flush() override { writer_.flush(); }

 private:
  RewardLogWriter &writer_;
};

}  // namespace hpcreward
