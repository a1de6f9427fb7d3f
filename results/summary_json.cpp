#include "results/summary_json.hpp"

#include <nlohmann/json.hpp>

#include "results/record_json.hpp"

namespace hpcreward {

namespace {

using Json = nlohmann::ordered_json;

Json number_or_null(bool present, double value) { return present ? Json(value) : Json(nullptr); }

Json stage_json(const StageSummary &stage) {
  Json statuses = Json::object();
  for (const auto &[status, count] : stage.statuses) statuses[status] = count;
  const bool any = stage.candidates > 0;
  return {{"problem", stage.problem},
          {"stage", stage.stage},
          {"candidates", stage.candidates},
          {"ok", stage.ok},
          {"reused", stage.reused},
          {"niches", stage.niches},
          {"statuses", statuses},
          {"best_gflops", number_or_null(stage.best.has_value(), stage.best ? stage.best->gflops : 0)},
          {"median_gflops", number_or_null(stage.median_gflops.has_value(), stage.median_gflops.value_or(0))},
          {"best", stage.best ? record_json(*stage.best) : Json(nullptr)},
          {"best_techniques", stage.best ? techniques_text(*stage.best) : ""},
          {"first_time", number_or_null(any, stage.first_time)},
          {"last_time", number_or_null(any, stage.last_time)}};
}

Json table_json(const TextTable &table) {
  Json columns = Json::array();
  for (const TextTable::Column &column : table.columns())
    columns.push_back({{"header", column.header},
                       {"align", column.align == TextTable::Align::right ? "right" : "left"}});
  return {{"columns", columns}, {"rows", table.rows()}};
}

}  // namespace

std::string summary_json(const RunSummary &summary, h5::WriterState writer) {
  Json stages = Json::array();
  for (const StageSummary &stage : summary.stages()) stages.push_back(stage_json(stage));
  const Json document = {{"format", kSummaryJsonFormat},
                         {"writer", std::string(h5::to_string(writer))},
                         {"rows", summary.rows()},
                         {"stages", stages},
                         {"total", stage_json(summary.total())},
                         {"table", table_json(summary.table())}};
  // Candidate ids and reasons come from trainers and compilers and need not be valid UTF-8.
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hpcreward
