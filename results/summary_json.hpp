#pragma once
// `hpcreward-results summary --json`: the summary of a log (summary.hpp) and its writer's state
// (log_file_state.hpp) as one JSON document, which the report and the live view
// (results/python/hpcreward_report) take instead of computing them again:
//   {"format": 1, "writer": "running" | "closed" | "died", "rows": N,
//    "stages": [STAGE, ...],   per (problem, stage), in the order the run first scored them
//    "total": STAGE,           the whole run: problem "total", stage ""
//    "table": {"columns": [{"header": ..., "align": "left" | "right"}, ...],
//              "rows": [[cell, ...], ...]}}   the table `summary` prints, cell by cell
// where STAGE is {"problem", "stage", "candidates", "ok", "reused", "niches",
// "statuses": {status: count, ...} (ok first, in the order of docs/design.md's status table),
// "best_gflops", "median_gflops" (null without a verified row), "best" (the fastest verified
// row with every column of /rewards, as `export --format jsonl` writes it, or null),
// "best_techniques" (its descriptor in words, "openmp ikj 64x64", or ""),
// "first_time", "last_time" (the earliest and latest row time, null without rows)}.
#include <string>

#include "results/log_file_state.hpp"
#include "results/summary.hpp"

namespace hpcreward {

// The document's version, raised when its shape changes: a report that reads another says so.
inline constexpr int kSummaryJsonFormat = 1;

std::string summary_json(const RunSummary &summary, h5::WriterState writer);

}  // namespace hpcreward
