// A summary's text forms: the log's columns, the archive's niche key, and reading them back.
#include "techniques/summary_text.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace hpcreward {
namespace {

TEST(SummaryText, ColumnsAndDescriptorKey) {
  TechniqueSummary summary{true, {"openmp", "blocking"}, "ikj", {60, 64}, ""};
  EXPECT_EQ(descriptor_key(summary), "openmp+blocking|ikj|32x64");
  EXPECT_EQ(techniques_text(summary), "openmp+blocking");
  EXPECT_EQ(tile_sizes_text(summary.tile_sizes), "60x64");
  EXPECT_EQ(descriptor_key(TechniqueSummary{true, {}, "", {}, ""}), "plain|?|-");
}

TEST(SummaryText, ColumnsReadBackAsTheSummaryTheyCameFrom) {
  const TechniqueSummary summary{true, {"smem", "tensor"}, "", {64, 128}, "not logged"};
  const TechniqueSummary back = summary_from_text(techniques_text(summary), summary.loop_order,
                                                  tile_sizes_text(summary.tile_sizes));
  EXPECT_TRUE(back.detected);
  EXPECT_EQ(back.techniques, summary.techniques);
  EXPECT_EQ(back.tile_sizes, summary.tile_sizes);
  EXPECT_EQ(back.evidence, "");
  EXPECT_EQ(descriptor_key(back), descriptor_key(summary));
  EXPECT_TRUE(summary_from_text("plain", "ikj", "").techniques.empty());
  EXPECT_FALSE(summary_from_text("", "", "").detected) << "rows from before detection ran";
  EXPECT_THROW(summary_from_text("blocking", "", "64xbig"), std::invalid_argument);
}

}  // namespace
}  // namespace hpcreward
