// The quality-diversity archive: niches, elites, optional shaping, rebuild from the log.
#include <gtest/gtest.h>

#include "stages/ladder_config.hpp"
#include "stages/qd_archive.hpp"

namespace hpcreward {
namespace {

ArchiveEntry entry(const std::string &stage, const std::string &key, const std::string &id, double gflops) {
  return {"dgemm-256", stage, key, {id, gflops, std::string(64, id.back())}};
}

TEST(QdArchive, NewNicheNewEliteNoChange) {
  QdArchive archive;
  ArchiveUpdate first = archive.update(entry("openmp", "openmp|ikj|", "c1", 10));
  EXPECT_EQ(first.change, ArchiveChange::new_niche);
  EXPECT_FALSE(first.previous);
  EXPECT_EQ(first.bonus, 0);  // shaping is off by default

  EXPECT_EQ(archive.update(entry("openmp", "openmp|ikj|", "c2", 9)).change, ArchiveChange::no_change);
  EXPECT_EQ(archive.update(entry("openmp", "openmp|ikj|", "c3", 10)).change, ArchiveChange::no_change);
  ArchiveUpdate better = archive.update(entry("openmp", "openmp|ikj|", "c4", 12));
  EXPECT_EQ(better.change, ArchiveChange::new_elite);
  ASSERT_TRUE(better.previous);
  EXPECT_EQ(better.previous->candidate_id, "c1");

  const Elite *elite = archive.elite("dgemm-256", "openmp", "openmp|ikj|");
  ASSERT_NE(elite, nullptr);
  EXPECT_EQ(*elite, (Elite{"c4", 12, std::string(64, '4')}));
  EXPECT_EQ(to_string(better.change), "new_elite");
}

TEST(QdArchive, NichesAreSeparatePerKeyStageAndProblem) {
  QdArchive archive;
  EXPECT_EQ(archive.update(entry("openmp", "openmp|ikj|", "c1", 10)).change, ArchiveChange::new_niche);
  EXPECT_EQ(archive.update(entry("openmp", "openmp|ijk|", "c2", 5)).change, ArchiveChange::new_niche);
  EXPECT_EQ(archive.update(entry("open", "openmp|ikj|", "c3", 1)).change, ArchiveChange::new_niche);
  ArchiveEntry other = entry("openmp", "openmp|ikj|", "c4", 1);
  other.problem = "sgemm-256";
  EXPECT_EQ(archive.update(other).change, ArchiveChange::new_niche);
  EXPECT_EQ(archive.niches("dgemm-256", "openmp").size(), 2u);
  EXPECT_EQ(archive.niches("dgemm-256", "open").size(), 1u);
  EXPECT_TRUE(archive.niches("dgemm-256", "o0").empty());
  EXPECT_EQ(archive.elite("dgemm-256", "o0", "x"), nullptr);
  EXPECT_EQ(archive.all().size(), 3u);
}

TEST(QdArchive, ShapingBonusesWhenEnabled) {
  QdArchive archive(ArchiveShaping{true, 5.0, 2.0});
  EXPECT_EQ(archive.update(entry("blocking", "blocking|ikj|64x64", "c1", 10)).bonus, 5.0);
  EXPECT_EQ(archive.update(entry("blocking", "blocking|ikj|64x64", "c2", 11)).bonus, 2.0);
  EXPECT_EQ(archive.update(entry("blocking", "blocking|ikj|64x64", "c3", 11)).bonus, 0.0);
}

TEST(QdArchive, DefaultConfigLeavesShapingOff) {
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  QdArchive archive(config.shaping);
  EXPECT_EQ(archive.update(entry("o0", "|ijk|", "c1", 1)).bonus, 0.0);
}

TEST(QdArchive, RebuildEqualsLiveUpdates) {
  std::vector<ArchiveEntry> log = {
      entry("o3", "|ijk|", "c1", 1),         entry("o3", "|ikj|", "c2", 3),
      entry("o3", "|ijk|", "c3", 2),         entry("o3", "|ikj|", "c4", 2),
      entry("openmp", "openmp|ikj|", "c5", 8), entry("o3", "|ijk|", "c6", 2),
  };
  QdArchive live;
  for (const ArchiveEntry &e : log) live.update(e);
  QdArchive rebuilt = QdArchive::rebuild({}, log);
  EXPECT_EQ(rebuilt, live);
  EXPECT_EQ(rebuilt.elite("dgemm-256", "o3", "|ijk|")->candidate_id, "c3");  // first to reach 2
  EXPECT_EQ(rebuilt.elite("dgemm-256", "o3", "|ikj|")->candidate_id, "c2");
}

}  // namespace
}  // namespace hpcreward
