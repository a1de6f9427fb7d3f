#include "c_analysis/preamble_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>

#include "c_analysis/libclang_handles.hpp"

namespace hpcreward::c_analysis {

PreambleCache::PreambleCache(std::filesystem::path directory, std::size_t capacity)
    : directory_(std::move(directory)), capacity_(capacity) {}

std::filesystem::path PreambleCache::pch_for(CXIndex index,
                                             const std::vector<std::string> &arguments,
                                             const std::string &preamble) {
  if (capacity_ == 0) return {};
  std::string key_text = preamble;
  for (const std::string &argument : arguments) key_text += '\0' + argument;
  char key[17];
  std::snprintf(key, sizeof key, "%016zx", std::hash<std::string>{}(key_text));
  const std::filesystem::path pch = directory_ / (std::string("preamble-") + key + ".pch");
  const std::filesystem::path failed = directory_ / (std::string("preamble-") + key + ".failed");
  std::error_code error;
  if (std::filesystem::exists(pch, error)) {  // used: the last to be evicted
    std::filesystem::last_write_time(pch, std::filesystem::file_time_type::clock::now(), error);
    return pch;
  }
  if (std::filesystem::exists(failed, error)) return {};  // tried before: no PCH for this one
  // Marked as failed until it is saved: a build that crashes is not tried again either.
  std::ofstream(failed).close();

  const std::string header = (directory_ / (std::string("preamble-") + key + ".h")).string();
  std::vector<const char *> argv;
  for (const std::string &argument : arguments) argv.push_back(argument.c_str());
  argv.insert(argv.end(), {"-x", "c-header"});  // the last -x applies to the file
  CXUnsavedFile file{header.c_str(), preamble.data(), static_cast<unsigned long>(preamble.size())};
  CXTranslationUnit raw = nullptr;
  if (clang_parseTranslationUnit2(index, header.c_str(), argv.data(), static_cast<int>(argv.size()),
                                  &file, 1,
                                  CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization |
                                      CXTranslationUnit_DetailedPreprocessingRecord,
                                  &raw) != CXError_Success)
    return {};
  const TranslationUnitHandle unit(raw);
  // Only a clean preamble is worth keeping: after an error the headers were read in part.
  for (unsigned i = 0; i < clang_getNumDiagnostics(unit.get()); ++i)
    if (clang_getDiagnosticSeverity(DiagnosticHandle(clang_getDiagnostic(unit.get(), i)).get()) >=
        CXDiagnostic_Error)
      return {};
  // Written under a temporary name, then renamed: a reader never sees half a PCH.
  const std::filesystem::path partial = pch.string() + ".part-" + std::to_string(::getpid());
  if (clang_saveTranslationUnit(unit.get(), partial.c_str(), CXSaveTranslationUnit_None) !=
      CXSaveError_None) {
    std::filesystem::remove(partial, error);
    return {};
  }
  std::filesystem::rename(partial, pch, error);
  if (error) {
    std::filesystem::remove(partial, error);
    return {};
  }
  std::filesystem::remove(failed, error);
  evict();
  return pch;
}

void PreambleCache::forget(const std::filesystem::path &pch) {
  std::error_code error;
  std::filesystem::remove(pch, error);
}

void PreambleCache::evict() {
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> pchs;
  std::error_code error;
  for (const auto &entry : std::filesystem::directory_iterator(directory_, error))
    if (entry.path().extension() == ".pch")
      pchs.emplace_back(entry.last_write_time(error), entry.path());
  if (pchs.size() <= capacity_) return;
  std::sort(pchs.begin(), pchs.end());
  for (std::size_t i = 0; i + capacity_ < pchs.size(); ++i)
    std::filesystem::remove(pchs[i].second, error);
}

}  // namespace hpcreward::c_analysis
