#pragma once
// The columns of every record dataset of the log (/rewards, /stage_events, /archive,
// /rank_events), in
// member order. One table per record type drives its HDF5 compound type, the encoding of
// records, and the CSV/JSONL export, so they cannot disagree; column names are exactly the
// member names (h5py users index the log by them).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "results/log_records.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

// A fixed-length, null-padded string column of `size` bytes; longer values are cut
// at a UTF-8 boundary when written.
template <typename Record>
struct StringColumn {
  std::string_view name;
  std::string Record::*member;
  std::size_t size;
};

template <typename Record, typename T>
struct NumberColumn {
  using value_type = T;
  std::string_view name;
  T Record::*member;
};

template <typename Record>
using Column = std::variant<StringColumn<Record>, NumberColumn<Record, double>,
                            NumberColumn<Record, std::int32_t>, NumberColumn<Record, std::uint64_t>>;

// /rewards.
using StringField = StringColumn<RewardRow>;
template <typename T>
using NumberField = NumberColumn<RewardRow, T>;
using RowField = Column<RewardRow>;

inline constexpr std::array<RowField, 36> kRowFields = {
    StringField{"candidate_id", &RewardRow::candidate_id, 64},
    StringField{"batch_id", &RewardRow::batch_id, 64},
    StringField{"problem", &RewardRow::problem, 32},
    StringField{"stage", &RewardRow::stage, 32},
    StringField{"status", &RewardRow::status, 24},
    StringField{"reason", &RewardRow::reason, 256},
    NumberField<double>{"reward", &RewardRow::reward},
    NumberField<double>{"gflops", &RewardRow::gflops},
    NumberField<double>{"median_s", &RewardRow::median_s},
    NumberField<double>{"min_s", &RewardRow::min_s},
    NumberField<double>{"iqr_s", &RewardRow::iqr_s},
    NumberField<double>{"cv", &RewardRow::cv},
    NumberField<std::int32_t>{"reps", &RewardRow::reps},
    NumberField<double>{"max_error", &RewardRow::max_error},
    NumberField<double>{"compile_s", &RewardRow::compile_s},
    NumberField<double>{"verify_s", &RewardRow::verify_s},
    NumberField<double>{"time_s", &RewardRow::time_s},
    StringField{"source_sha256", &RewardRow::source_sha256, 64},
    NumberField<std::int32_t>{"rank", &RewardRow::rank},
    StringField{"host", &RewardRow::host, 64},
    NumberField<double>{"time", &RewardRow::time},
    NumberField<std::uint64_t>{"seed", &RewardRow::seed},
    // Schema v2. A v1 log lacks these four; readers leave them empty.
    StringField{"techniques", &RewardRow::techniques, 32},
    StringField{"loop_order", &RewardRow::loop_order, 8},
    StringField{"tile_sizes", &RewardRow::tile_sizes, 32},
    StringField{"archive", &RewardRow::archive, 16},
    // Schema v3. Older logs lack it; readers leave it empty.
    StringField{"device", &RewardRow::device, 64},
    // Schema v5. Older logs lack these; readers leave them empty.
    StringField{"measurement_key", &RewardRow::measurement_key, 64},
    StringField{"measured_as", &RewardRow::measured_as, 64},
    StringField{"measured_batch", &RewardRow::measured_batch, 64},
    // Schema v6. Older logs lack these; readers leave them 0.
    NumberField<double>{"openblas_gflops", &RewardRow::openblas_gflops},
    NumberField<double>{"cublas_gflops", &RewardRow::cublas_gflops},
    NumberField<double>{"cublaslt_gflops", &RewardRow::cublaslt_gflops},
    // Schema v7. Older logs lack these; readers leave them empty (and turn 0).
    StringField{"feedback", &RewardRow::feedback, 512},
    StringField{"episode", &RewardRow::episode, 64},
    NumberField<std::int32_t>{"turn", &RewardRow::turn},
};

// /stage_events (schema v2).
inline constexpr std::array<Column<StageEventRecord>, 7> kStageEventFields = {
    StringColumn<StageEventRecord>{"problem", &StageEventRecord::problem, 32},
    StringColumn<StageEventRecord>{"from", &StageEventRecord::from, 32},
    StringColumn<StageEventRecord>{"to", &StageEventRecord::to, 32},
    StringColumn<StageEventRecord>{"rule", &StageEventRecord::rule, 32},
    StringColumn<StageEventRecord>{"detail", &StageEventRecord::detail, 256},
    NumberColumn<StageEventRecord, double>{"time", &StageEventRecord::time},
    NumberColumn<StageEventRecord, std::uint64_t>{"rows_before", &StageEventRecord::rows_before},
};

// /archive (schema v2).
inline constexpr std::array<Column<ArchiveRecord>, 12> kArchiveFields = {
    StringColumn<ArchiveRecord>{"problem", &ArchiveRecord::problem, 32},
    StringColumn<ArchiveRecord>{"stage", &ArchiveRecord::stage, 32},
    StringColumn<ArchiveRecord>{"niche", &ArchiveRecord::niche, 64},
    StringColumn<ArchiveRecord>{"change", &ArchiveRecord::change, 16},
    StringColumn<ArchiveRecord>{"candidate_id", &ArchiveRecord::candidate_id, 64},
    StringColumn<ArchiveRecord>{"batch_id", &ArchiveRecord::batch_id, 64},
    NumberColumn<ArchiveRecord, double>{"gflops", &ArchiveRecord::gflops},
    StringColumn<ArchiveRecord>{"source_sha256", &ArchiveRecord::source_sha256, 64},
    StringColumn<ArchiveRecord>{"previous_candidate_id", &ArchiveRecord::previous_candidate_id,
                                64},
    NumberColumn<ArchiveRecord, double>{"previous_gflops", &ArchiveRecord::previous_gflops},
    NumberColumn<ArchiveRecord, double>{"time", &ArchiveRecord::time},
    NumberColumn<ArchiveRecord, std::uint64_t>{"row_index", &ArchiveRecord::row_index},
};

// /rank_events (schema v4).
inline constexpr std::array<Column<RankEventRecord>, 5> kRankEventFields = {
    NumberColumn<RankEventRecord, double>{"time", &RankEventRecord::time},
    NumberColumn<RankEventRecord, std::int32_t>{"rank", &RankEventRecord::rank},
    StringColumn<RankEventRecord>{"host", &RankEventRecord::host, 64},
    StringColumn<RankEventRecord>{"event", &RankEventRecord::event, 32},
    StringColumn<RankEventRecord>{"reason", &RankEventRecord::reason, 512},
};

// The column table of each record type, for code written once for all of them.
template <typename Record>
constexpr const auto &columns_of() {
  if constexpr (std::is_same_v<Record, RewardRow>)
    return kRowFields;
  else if constexpr (std::is_same_v<Record, StageEventRecord>)
    return kStageEventFields;
  else if constexpr (std::is_same_v<Record, ArchiveRecord>)
    return kArchiveFields;
  else if constexpr (std::is_same_v<Record, RankEventRecord>)
    return kRankEventFields;
  else
    static_assert(!sizeof(Record), "no column table for this record type");
}

// The name of any column.
template <typename Record>
std::string_view field_name(const Column<Record> &field) {
  return std::visit([](const auto &f) { return f.name; }, field);
}

}  // namespace hpcreward
