#pragma once
// JSON encoding of the rank's hello (RankInfo) and of a runner's measurement on its result pipe
// (bench_node/result_envelope), with the pieces they hold (nlohmann::json ADL hooks). Tasks and
// results between the ranks are binary (messages_binary.hpp). Decoding a malformed message
// throws nlohmann::json::exception: messages come from our own processes. A measurement's
// numbers may be infinite or NaN (a wrong answer's error): they travel as "inf", "-inf", "nan".
#include <nlohmann/json.hpp>

#include "common/messages.hpp"

namespace hpcreward {

void to_json(nlohmann::json &out, const Shape &shape);
void from_json(const nlohmann::json &in, Shape &shape);
void to_json(nlohmann::json &out, const Problem &problem);
void from_json(const nlohmann::json &in, Problem &problem);
void to_json(nlohmann::json &out, const TechniqueSummary &summary);
void from_json(const nlohmann::json &in, TechniqueSummary &summary);
void to_json(nlohmann::json &out, const Measurement &measurement);
void from_json(const nlohmann::json &in, Measurement &measurement);
void to_json(nlohmann::json &out, const GpuInfo &gpu);
void from_json(const nlohmann::json &in, GpuInfo &gpu);
void to_json(nlohmann::json &out, const RankInfo &info);
void from_json(const nlohmann::json &in, RankInfo &info);

}  // namespace hpcreward
