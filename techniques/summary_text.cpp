#include "techniques/summary_text.hpp"

#include <bit>

namespace hpcreward {
namespace {

int power_of_two_floor(int value) {
  return value <= 0 ? value : static_cast<int>(std::bit_floor(static_cast<unsigned>(value)));
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace

std::string techniques_text(const TechniqueSummary &summary) {
  if (summary.techniques.empty()) return "plain";
  std::string text;
  for (const std::string &technique : summary.techniques) {
    if (!text.empty()) text += '+';
    text += technique;
  }
  return text;
}

std::string tile_sizes_text(const std::vector<int> &tile_sizes) {
  std::string text;
  for (int size : tile_sizes) {
    if (!text.empty()) text += 'x';
    text += std::to_string(size);
  }
  return text;
}

std::string descriptor_key(const TechniqueSummary &summary) {
  std::vector<int> buckets;
  for (int size : summary.tile_sizes) buckets.push_back(power_of_two_floor(size));
  const std::string tiles = tile_sizes_text(buckets);
  return techniques_text(summary) + "|" + (summary.loop_order.empty() ? "?" : summary.loop_order) +
         "|" + (tiles.empty() ? "-" : tiles);
}

TechniqueSummary summary_from_text(const std::string &techniques, const std::string &loop_order,
                                   const std::string &tile_sizes) {
  TechniqueSummary summary;
  summary.detected = !techniques.empty();
  if (techniques != "plain") summary.techniques = split(techniques, '+');
  summary.loop_order = loop_order;
  for (const std::string &size : split(tile_sizes, 'x')) summary.tile_sizes.push_back(std::stoi(size));
  return summary;
}

}  // namespace hpcreward
