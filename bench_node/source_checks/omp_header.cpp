#include "bench_node/source_checks/omp_header.hpp"

#include <fstream>
#include <sstream>

#include "bench_node/checks/compiler.hpp"

namespace hpcreward::source_checks {

namespace {

std::filesystem::path compiler_omp_header(const std::string &cc) {
  const std::filesystem::path path = query_compiler(cc, {"-print-file-name=include/omp.h"});
  if (path.empty()) return {};
  // Without one, gcc echoes the name back instead of a path.
  std::error_code error;
  if (!path.is_absolute() || !std::filesystem::is_regular_file(path, error)) return {};
  return path;
}

}  // namespace

std::string clang_compatible_omp_header(std::string text) {
  const std::string attribute = "__malloc__";
  for (std::size_t at = text.find(attribute); at != std::string::npos;
       at = text.find(attribute, at + attribute.size())) {
    std::size_t open = at + attribute.size();
    while (open < text.size() && (text[open] == ' ' || text[open] == '\t')) ++open;
    if (open >= text.size() || text[open] != '(') continue;
    const std::size_t close = text.find(')', open);
    if (close == std::string::npos) break;
    text.erase(at + attribute.size(), close + 1 - (at + attribute.size()));
  }
  return text;
}

bool install_compiler_omp_header(const std::string &cc, const std::filesystem::path &include_dir) {
  const std::filesystem::path source = compiler_omp_header(cc);
  if (source.empty()) return false;
  std::ifstream in(source, std::ios::binary);
  if (!in.is_open()) return false;
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::create_directories(include_dir);
  std::ofstream out(include_dir / "omp.h", std::ios::binary | std::ios::trunc);
  out << clang_compatible_omp_header(text.str());
  return static_cast<bool>(out);
}

}  // namespace hpcreward::source_checks
