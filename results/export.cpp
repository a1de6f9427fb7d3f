#include "results/export.hpp"

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

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

}  // namespace

void write_csv(std::ostream &out, const std::vector<RewardRow> &rows) {
  for (std::size_t i = 0; i < kRowFields.size(); ++i)
    out << (i ? "," : "") << field_name(kRowFields[i]);
  out << '\n';
  for (const RewardRow &row : rows) {
    for (std::size_t i = 0; i < kRowFields.size(); ++i) {
      if (i) out << ',';
      std::visit(
          [&](const auto &f) {
            if constexpr (std::is_same_v<std::decay_t<decltype(f)>, StringField>)
              out << csv_field(row.*f.member);
            else
              out << number_text(row.*f.member);
          },
          kRowFields[i]);
    }
    out << '\n';
  }
}

void write_jsonl(std::ostream &out, const std::vector<RewardRow> &rows) {
  for (const RewardRow &row : rows) {
    nlohmann::ordered_json object;  // keeps the column order of /rewards
    for (const RowField &field : kRowFields)
      std::visit([&](const auto &f) { object[std::string(f.name)] = row.*f.member; }, field);
    // Reasons quote compiler output, which need not be valid UTF-8: replace, don't throw.
    out << object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }
}

}  // namespace hpcreward
