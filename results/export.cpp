#include "results/export.hpp"

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "results/record_json.hpp"
#include "results/row_fields.hpp"

namespace hpcreward {

namespace {

// RFC 4180: quote a field that holds a separator, a quote or a line break.
std::string csv_field(const std::string &text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

// Shortest text that reads back as the same number (std::to_chars' guarantee).
template <typename T>
std::string number_text(T value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

template <typename Record>
void csv(std::ostream &out, const std::vector<Record> &records) {
  const auto &columns = columns_of<Record>();
  for (std::size_t i = 0; i < columns.size(); ++i)
    out << (i ? "," : "") << field_name<Record>(columns[i]);
  out << '\n';
  for (const Record &record : records) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) out << ',';
      std::visit(
          [&](const auto &f) {
            if constexpr (std::is_same_v<std::decay_t<decltype(f)>, StringColumn<Record>>)
              out << csv_field(record.*f.member);
            else
              out << number_text(record.*f.member);
          },
          columns[i]);
    }
    out << '\n';
  }
}

template <typename Record>
void jsonl(std::ostream &out, const std::vector<Record> &records) {
  for (const Record &record : records) {
    // Reasons quote compiler output, which need not be valid UTF-8: replace, don't throw.
    out << record_json(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }
}

}  // namespace

void write_csv(std::ostream &out, const std::vector<RewardRow> &rows) { csv(out, rows); }
void write_jsonl(std::ostream &out, const std::vector<RewardRow> &rows) { jsonl(out, rows); }
void write_csv(std::ostream &out, const std::vector<StageEventRecord> &events) {
  csv(out, events);
}
void write_jsonl(std::ostream &out, const std::vector<StageEventRecord> &events) {
  jsonl(out, events);
}
void write_csv(std::ostream &out, const std::vector<ArchiveRecord> &records) {
  csv(out, records);
}
void write_jsonl(std::ostream &out, const std::vector<ArchiveRecord> &records) {
  jsonl(out, records);
}
void write_csv(std::ostream &out, const std::vector<RankEventRecord> &events) { csv(out, events); }
void write_jsonl(std::ostream &out, const std::vector<RankEventRecord> &events) { jsonl(out, events); }

}  // namespace hpcreward
