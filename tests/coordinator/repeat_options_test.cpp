// --repeat-cache-entries: its default, 0, and a bad value.
#include <gtest/gtest.h>

#include <vector>

#include "coordinator/scoring/measurement_cache.hpp"
#include "coordinator/run/options.hpp"

namespace hpcreward {
namespace {

std::optional<CoordinatorOptions> parse(std::vector<const char *> arguments) {
  arguments.insert(arguments.begin(), "hpcreward-coordinator");
  return parse_coordinator_options(static_cast<int>(arguments.size()), arguments.data());
}

TEST(RepeatCacheOption, DefaultsToABoundedCacheAndIsRecorded) {
  auto options = parse({"--candidates", "c.jsonl", "--out", "o"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->repeat_cache_entries, kDefaultRepeatCacheEntries);
  EXPECT_GT(kDefaultRepeatCacheEntries, 0u);
  EXPECT_EQ(options->as_json["repeat_cache_entries"], kDefaultRepeatCacheEntries);
}

TEST(RepeatCacheOption, ZeroTurnsReuseOff) {
  auto options = parse({"--candidates", "c.jsonl", "--out", "o", "--repeat-cache-entries", "0"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->repeat_cache_entries, 0u);
}

TEST(RepeatCacheOption, ANegativeOrHugeCountIsRefused) {
  try {
    parse({"--candidates", "c.jsonl", "--out", "o", "--repeat-cache-entries=2000000"});
    FAIL() << "2000000 entries accepted";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("use at most 1000000, or 0"), std::string::npos) << error.what();
  }
  EXPECT_ANY_THROW(parse({"--candidates", "c.jsonl", "--out", "o", "--repeat-cache-entries=-1"}));
  EXPECT_ANY_THROW(parse({"--candidates", "c.jsonl", "--out", "o", "--repeat-cache-entries", "many"}));
}

}  // namespace
}  // namespace hpcreward
