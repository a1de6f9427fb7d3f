#include "bench_node/cuda/link_refusal.hpp"

#include <algorithm>

#include "bench_node/cuda/cuda_symbol_policy.hpp"

namespace hpcreward {

namespace {

// "ns::cublasDgemm_v2(cublasContext*, int)" -> "cublasDgemm_v2"
std::string bare_name(std::string name) {
  if (const std::size_t open = name.find('('); open != std::string::npos) name.resize(open);
  if (const std::size_t scope = name.rfind("::"); scope != std::string::npos) name.erase(0, scope + 2);
  return name;
}

}  // namespace

std::vector<std::string> undefined_references(const std::string &log) {
  constexpr std::string_view kMarker = "undefined reference to `";
  std::vector<std::string> names;
  for (std::size_t at = log.find(kMarker); at != std::string::npos;
       at = log.find(kMarker, at + 1)) {
    const std::size_t begin = at + kMarker.size();
    const std::size_t end = log.find('\'', begin);
    if (end == std::string::npos || log.find('\n', begin) < end) continue;
    std::string name = bare_name(log.substr(begin, end - begin));
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(std::move(name));
  }
  return names;
}

std::optional<Verdict> link_refusal(const std::string &log) {
  for (const std::string &name : undefined_references(log))
    if (std::optional<std::string> why = named_import_refusal(name, cuda_import_table()))
      return Verdict{Status::forbidden,
                     "the code calls " + name + " (" + *why + "); the linker found no " + name};
  return std::nullopt;
}

}  // namespace hpcreward
