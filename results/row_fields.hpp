#pragma once
// The columns of /rewards, in RewardRow order. This one table drives the HDF5 compound
// type, the encoding of rows, and the CSV/JSONL export, so they cannot disagree; column
// names are exactly the RewardRow member names (h5py users index the log by them).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "results/reward_row.hpp"

namespace hpcreward {

// A fixed-length, null-padded string column of `size` bytes; longer values are cut
// at a UTF-8 boundary when written.
struct StringField {
  std::string_view name;
  std::string RewardRow::*member;
  std::size_t size;
};

template <typename T>
struct NumberField {
  using value_type = T;
  std::string_view name;
  T RewardRow::*member;
};

using RowField = std::variant<StringField, NumberField<double>, NumberField<std::int32_t>,
                              NumberField<std::uint64_t>>;

inline constexpr std::array<RowField, 22> kRowFields = {
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
};

// The name of any column.
inline std::string_view field_name(const RowField &field) {
  return std::visit([](const auto &f) { return f.name; }, field);
}

}  // namespace hpcreward
