#pragma once
// One log record as a JSON object: its columns (row_fields.hpp) as keys, in dataset order.
// What `export --format jsonl` writes per line and what `summary --json` gives as a best row.
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "results/row_fields.hpp"

namespace hpcreward {

template <typename Record>
nlohmann::ordered_json record_json(const Record &record) {
  nlohmann::ordered_json object;  // keeps the column order of the dataset
  for (const auto &field : columns_of<Record>())
    std::visit([&](const auto &f) { object[std::string(f.name)] = record.*f.member; }, field);
  return object;
}

}  // namespace hpcreward
