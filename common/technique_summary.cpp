#include "common/technique_summary.hpp"

#include <bit>

namespace hpcreward {
namespace {

int power_of_two_floor(int value) {
  return value <= 0 ? value : static_cast<int>(std::bit_floor(static_cast<unsigned>(value)));
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

}  // namespace hpcreward
