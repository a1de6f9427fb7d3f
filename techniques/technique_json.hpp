#pragma once
// The two halves of detection as JSON text: how a forked child hands its findings to the
// rank (bench_node/rank/technique_check.cpp, bench_node/source_checks/). The rank applies the
// rules (technique_detection.hpp); the child only reports what it found.
#include <string>

#include <nlohmann/json.hpp>

#include "techniques/object_techniques.hpp"
#include "techniques/source_techniques.hpp"

namespace hpcreward::techniques {

nlohmann::json to_json(const SourceTechniques &source);
nlohmann::json to_json(const ObjectTechniques &object);

// Throw nlohmann::json exceptions on JSON that to_json did not write.
SourceTechniques source_techniques_from_json(const nlohmann::json &json);
ObjectTechniques object_techniques_from_json(const nlohmann::json &json);

}  // namespace hpcreward::techniques
