#include "bench_node/object_audit/symbol_rules.hpp"

#include <algorithm>
#include <iterator>

namespace hpcreward {

namespace {

constexpr std::string_view kStartupHooks[] = {"__cxa_finalize", "_ITM_registerTMCloneTable",
                                              "_ITM_deregisterTMCloneTable", "__gmon_start__"};

std::string_view without_stream_suffix(std::string_view name) {
  for (std::string_view suffix : {"_ptsz", "_ptds"})
    if (name.size() > suffix.size() && name.ends_with(suffix))
      return name.substr(0, name.size() - suffix.size());
  return name;
}

std::string_view judged_name(std::string_view name, const ImportTable &table) {
  return table.per_thread_stream_names ? without_stream_suffix(name) : name;
}

}  // namespace

std::optional<std::string> named_import_refusal(std::string_view raw, const ImportTable &table) {
  const std::string_view name = judged_name(raw, table);
  if (std::optional<std::string_view> why = refusal_reason(table.symbols, name)) return std::string(*why);
  if (table.refused_family != nullptr)
    if (std::optional<std::string_view> why = table.refused_family(name)) return std::string(*why);
  return std::nullopt;
}

std::optional<std::string> import_refusal(std::string_view raw, const ImportTable &table) {
  if (std::optional<std::string> why = named_import_refusal(raw, table)) return why;
  const std::string_view name = judged_name(raw, table);
  if (allowed_name(table.symbols, name) || (table.allowed_family != nullptr && table.allowed_family(name)))
    return std::nullopt;
  return std::string(table.unlisted);
}

bool allowed_library(std::string_view soname, const ImportTable &table) {
  return !refusal_reason(table.libraries, soname) && allowed_name(table.libraries, soname);
}

std::optional<std::string> export_refusal(const std::string &name, const ExportTable &table) {
  if (harness_name(name)) return "a symbol of the harness or the loader";
  if (reserved_identifier(name) && !(table.mangled_names && name.starts_with("_Z")))
    return "a reserved identifier (names starting with __ or _ and a capital letter belong to the "
           "implementation)";
  if (table.taken) return table.taken(name);
  return std::nullopt;
}

std::span<const std::string_view> startup_hooks() { return kStartupHooks; }

bool startup_hook(std::string_view name) {
  return std::find(std::begin(kStartupHooks), std::end(kStartupHooks), name) != std::end(kStartupHooks);
}

bool reserved_identifier(std::string_view name) {
  return name.size() >= 2 && name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

std::optional<std::string_view> vector_variant_base(std::string_view name) {
  constexpr std::string_view kPrefix = "_ZGV";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  std::size_t at = kPrefix.size();
  auto lower = [&](std::size_t i) { return i < name.size() && name[i] >= 'a' && name[i] <= 'z'; };
  auto digit = [&](std::size_t i) { return i < name.size() && name[i] >= '0' && name[i] <= '9'; };
  if (!lower(at++)) return std::nullopt;                                   // isa: b, c, d, e, n, s
  if (at >= name.size() || (name[at] != 'M' && name[at] != 'N')) return std::nullopt;  // mask
  ++at;
  if (at < name.size() && name[at] == 'x') ++at;                          // lanes: a number or x
  else if (!digit(at)) return std::nullopt;
  while (digit(at)) ++at;
  // parameters: v, u, l/R/L/U with an optional step, ls/Rs/Ls/Us with a position, a<align>
  constexpr std::string_view kParameterChars = "vulsRLUna0123456789";
  while (at < name.size() && kParameterChars.find(name[at]) != std::string_view::npos) ++at;
  if (at + 1 >= name.size() || name[at] != '_') return std::nullopt;
  return name.substr(at + 1);
}

bool harness_name(std::string_view name) {
  return name == "main" || name == "_start" || name == "_init" || name == "_fini";
}

}  // namespace hpcreward
