#pragma once
// JSON encoding of the messages (nlohmann::json ADL hooks). Decoding a malformed
// message throws nlohmann::json::exception: messages come from our own ranks.
#include <nlohmann/json.hpp>

#include "common/messages.hpp"

namespace hpcreward {

void to_json(nlohmann::json &out, const Shape &shape);
void from_json(const nlohmann::json &in, Shape &shape);
void to_json(nlohmann::json &out, const Problem &problem);
void from_json(const nlohmann::json &in, Problem &problem);
void to_json(nlohmann::json &out, const TechniqueSummary &summary);
void from_json(const nlohmann::json &in, TechniqueSummary &summary);
void to_json(nlohmann::json &out, const BenchTask &task);
void from_json(const nlohmann::json &in, BenchTask &task);
void to_json(nlohmann::json &out, const Measurement &measurement);
void from_json(const nlohmann::json &in, Measurement &measurement);
void to_json(nlohmann::json &out, const BenchResult &result);
void from_json(const nlohmann::json &in, BenchResult &result);
void to_json(nlohmann::json &out, const GpuInfo &gpu);
void from_json(const nlohmann::json &in, GpuInfo &gpu);
void to_json(nlohmann::json &out, const RankInfo &info);
void from_json(const nlohmann::json &in, RankInfo &info);

}  // namespace hpcreward
