#pragma once
// Log records as text for other tools: CSV (a header line of column names, then one line per
// record) or JSON Lines (one object per record). Columns and keys are the member names, in
// the order of their dataset (/rewards, /stage_events, /archive, /rank_events).
#include <ostream>
#include <vector>

#include "results/log_records.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

void write_csv(std::ostream &out, const std::vector<RewardRow> &rows);
void write_jsonl(std::ostream &out, const std::vector<RewardRow> &rows);
void write_csv(std::ostream &out, const std::vector<StageEventRecord> &events);
void write_jsonl(std::ostream &out, const std::vector<StageEventRecord> &events);
void write_csv(std::ostream &out, const std::vector<ArchiveRecord> &records);
void write_jsonl(std::ostream &out, const std::vector<ArchiveRecord> &records);
void write_csv(std::ostream &out, const std::vector<RankEventRecord> &events);
void write_jsonl(std::ostream &out, const std::vector<RankEventRecord> &events);

}  // namespace hpcreward
