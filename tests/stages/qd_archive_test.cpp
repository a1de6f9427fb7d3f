// The quality-diversity archive: niches, elites, optional shaping, rebuild from the log.
#include <gtest/gtest.h>

#include <cmath>

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

ArchiveEntry timed(const std::string &id, double gflops, double cv, std::string source = "") {
  ArchiveEntry e = entry("o3", "|ikj|", id, gflops);
  e.candidate.spread = cv;
  if (!source.empty()) e.candidate.source_sha256 = std::move(source);
  return e;
}

TEST(QdArchive, AnEliteFallsOnlyToAChallengerFasterThanTheNoiseOfBoth) {
  QdArchive archive(ArchiveShaping{true, 5.0, 2.0});
  EXPECT_EQ(archive.update(timed("c1", 18.44, 0.002)).change, ArchiveChange::new_niche);
  // 18.45 against 18.44 is re-timing noise: the red team's +2 for nothing.
  const ArchiveUpdate noise = archive.update(timed("c2", 18.45, 0.002));
  EXPECT_EQ(noise.change, ArchiveChange::no_change);
  EXPECT_EQ(noise.bonus, 0);
  // Spreads of 3% and 0.2%: within 3.2% nothing changes, past it the elite falls.
  EXPECT_EQ(archive.update(timed("c3", 18.44 * 1.03, 0.03)).change, ArchiveChange::no_change);
  const ArchiveUpdate better = archive.update(timed("c4", 18.44 * 1.033, 0.03));
  EXPECT_EQ(better.change, ArchiveChange::new_elite);
  EXPECT_EQ(better.bonus, 2.0);
  EXPECT_EQ(archive.elite("dgemm-256", "o3", "|ikj|")->spread, 0.03);
}

TEST(QdArchive, TheMarginHasAFloorWhenTheSpreadIsUnknownOrNonsense) {
  EXPECT_EQ(elite_margin(0, 0), kMinEliteMargin);
  EXPECT_EQ(elite_margin(-1, std::nan("")), kMinEliteMargin);
  EXPECT_DOUBLE_EQ(elite_margin(0.02, 0.01), 0.03);
  QdArchive archive;
  archive.update(timed("c1", 100, 0));
  EXPECT_EQ(archive.update(timed("c2", 100.9, 0)).change, ArchiveChange::no_change);
  EXPECT_EQ(archive.update(timed("c3", 101.1, 0)).change, ArchiveChange::new_elite);
}

TEST(QdArchive, ARepeatedSourceEarnsNoBonusInItsCell) {
  const std::string twin(64, 'a');
  QdArchive archive(ArchiveShaping{true, 5.0, 2.0});
  EXPECT_EQ(archive.update(timed("c1", 10, 0, twin)).bonus, 5.0);
  // The same kernel again, timed faster (another rank, a quiet moment): the elite is its
  // better timing, but the re-send earns nothing.
  const ArchiveUpdate again = archive.update(timed("c2", 20, 0, twin));
  EXPECT_EQ(again.change, ArchiveChange::new_elite);
  EXPECT_TRUE(again.repeated_source);
  EXPECT_EQ(again.bonus, 0);
  // Also when it lands in another niche of the cell (the detector read it otherwise).
  ArchiveEntry elsewhere = timed("c3", 10, 0, twin);
  elsewhere.descriptor_key = "|ijk|";
  const ArchiveUpdate other_niche = archive.update(elsewhere);
  EXPECT_EQ(other_niche.change, ArchiveChange::new_niche);
  EXPECT_EQ(other_niche.bonus, 0);
  // A source offered once and changing nothing still counts as offered.
  EXPECT_EQ(archive.update(timed("c4", 1, 0, std::string(64, 'b'))).bonus, 0);
  EXPECT_EQ(archive.update(timed("c5", 40, 0, std::string(64, 'b'))).bonus, 0);
  // Another cell (stage) has not seen it.
  ArchiveEntry next_stage = timed("c6", 10, 0, twin);
  next_stage.stage = "openmp";
  EXPECT_EQ(archive.update(next_stage).bonus, 5.0);
}

TEST(QdArchive, RebuildKeepsTheMarginAndTheSourcesSeen) {
  const std::vector<ArchiveEntry> log = {
      timed("c1", 10, 0.01, std::string(64, 'a')), timed("c2", 10.1, 0.01, std::string(64, 'b')),
      timed("c3", 11, 0.01, std::string(64, 'a')), timed("c4", 12, 0.01, std::string(64, 'c')),
  };
  const ArchiveShaping shaping{true, 5.0, 2.0};
  QdArchive live(shaping);
  std::vector<double> bonuses;
  for (const ArchiveEntry &e : log) bonuses.push_back(live.update(e).bonus);
  EXPECT_EQ(bonuses, (std::vector<double>{5.0, 0, 0, 2.0}));
  QdArchive rebuilt = QdArchive::rebuild(shaping, log);
  EXPECT_EQ(rebuilt, live);
  EXPECT_EQ(rebuilt.elite("dgemm-256", "o3", "|ikj|")->candidate_id, "c4");
  // After the replay the archive goes on as the live one would: the twin still earns nothing.
  EXPECT_EQ(rebuilt.update(timed("c5", 30, 0, std::string(64, 'a'))).bonus, 0);
  // The sources seen are part of the state: an offer that changed no elite still tells.
  QdArchive offered = QdArchive::rebuild(shaping, log);
  EXPECT_EQ(offered.update(timed("c6", 1, 0, std::string(64, 'z'))).change, ArchiveChange::no_change);
  EXPECT_FALSE(offered == QdArchive::rebuild(shaping, log));
}

}  // namespace
}  // namespace hpcreward
