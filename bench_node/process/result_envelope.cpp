#include "bench_node/process/result_envelope.hpp"

#include <random>

#include "common/messages_json.hpp"

namespace hpcreward {

std::string encode_result(const std::string &token, const Measurement &measurement, const PhaseSeconds &phases) {
  nlohmann::json body{{"token", token}, {"measurement", measurement}};
  if (!phases.empty()) body["phases"] = phases;
  // Reasons are our own text, but one that quotes bytes that are not UTF-8 must still be sent.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<DecodedResult> decode_result(const std::string &text) {
  try {
    const nlohmann::json body = nlohmann::json::parse(text);
    if (!body.is_object() || body.size() != (body.contains("phases") ? 3u : 2u)) return std::nullopt;
    DecodedResult result;
    result.token = body.at("token").get<std::string>();
    result.measurement = body.at("measurement").get<Measurement>();
    if (body.contains("phases")) result.phases = body.at("phases").get<PhaseSeconds>();
    return result;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

std::string make_token() {
  std::random_device device;
  static const char digits[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t word = device();
    for (int j = 0; j < 8; ++j) token.push_back(digits[(word >> (4 * j)) & 15]);
  }
  return token;
}

}  // namespace hpcreward
