#include "stages/qd_archive.hpp"

#include <algorithm>
#include <cmath>

namespace hpcreward {

std::string_view to_string(ArchiveChange change) {
  switch (change) {
    case ArchiveChange::new_niche: return "new_niche";
    case ArchiveChange::new_elite: return "new_elite";
    case ArchiveChange::no_change: return "no_change";
  }
  return "no_change";
}

double elite_margin(double challenger_spread, double elite_spread) {
  // A spread that is not a finite non-negative number says nothing: the floor alone.
  auto usable = [](double spread) { return std::isfinite(spread) && spread > 0 ? spread : 0.0; };
  return std::max(kMinEliteMargin, usable(challenger_spread) + usable(elite_spread));
}

ArchiveUpdate QdArchive::update(const ArchiveEntry &entry) {
  const Cell cell{entry.problem, entry.stage};
  Niches &niches = cells_[cell];
  ArchiveUpdate result;
  const std::string &source = entry.candidate.source_sha256;
  result.repeated_source = !source.empty() && !sources_[cell].insert(source).second;
  auto it = niches.find(entry.descriptor_key);
  double bonus = 0;
  if (it == niches.end()) {
    niches.emplace(entry.descriptor_key, entry.candidate);
    result.change = ArchiveChange::new_niche;
    bonus = shaping_.new_niche_bonus;
  } else if (entry.candidate.gflops >
             it->second.gflops * (1 + elite_margin(entry.candidate.spread, it->second.spread))) {
    result.previous = it->second;
    it->second = entry.candidate;
    result.change = ArchiveChange::new_elite;
    bonus = shaping_.new_elite_bonus;
  }
  if (shaping_.enabled && !result.repeated_source) result.bonus = bonus;
  return result;
}

const Elite *QdArchive::elite(const std::string &problem, const std::string &stage,
                              const std::string &descriptor_key) const {
  auto cell = cells_.find({problem, stage});
  if (cell == cells_.end()) return nullptr;
  auto it = cell->second.find(descriptor_key);
  return it == cell->second.end() ? nullptr : &it->second;
}

const QdArchive::Niches &QdArchive::niches(const std::string &problem,
                                           const std::string &stage) const {
  static const Niches empty;
  auto cell = cells_.find({problem, stage});
  return cell == cells_.end() ? empty : cell->second;
}

QdArchive QdArchive::rebuild(ArchiveShaping shaping, const std::vector<ArchiveEntry> &history) {
  QdArchive archive(shaping);
  for (const ArchiveEntry &entry : history) archive.update(entry);
  return archive;
}

}  // namespace hpcreward
