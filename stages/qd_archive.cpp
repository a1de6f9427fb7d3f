#include "stages/qd_archive.hpp"

namespace hpcreward {

std::string_view to_string(ArchiveChange change) {
  switch (change) {
    case ArchiveChange::new_niche: return "new_niche";
    case ArchiveChange::new_elite: return "new_elite";
    case ArchiveChange::no_change: return "no_change";
  }
  return "no_change";
}

ArchiveUpdate QdArchive::update(const ArchiveEntry &entry) {
  Niches &niches = cells_[{entry.problem, entry.stage}];
  ArchiveUpdate result;
  auto it = niches.find(entry.descriptor_key);
  if (it == niches.end()) {
    niches.emplace(entry.descriptor_key, entry.candidate);
    result.change = ArchiveChange::new_niche;
    if (shaping_.enabled) result.bonus = shaping_.new_niche_bonus;
  } else if (entry.candidate.gflops > it->second.gflops) {
    result.previous = it->second;
    it->second = entry.candidate;
    result.change = ArchiveChange::new_elite;
    if (shaping_.enabled) result.bonus = shaping_.new_elite_bonus;
  }
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
