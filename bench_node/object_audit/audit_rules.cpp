#include "bench_node/object_audit/audit_rules.hpp"

#include <string>

#include "bench_node/object_audit/symbol_policy.hpp"

namespace hpcreward {

namespace {

Verdict forbidden(std::string reason) { return {Status::forbidden, std::move(reason)}; }

}  // namespace

Verdict check_entry_point(const ElfObject &object) {
  for (const ElfSymbol &symbol : object.dynamic_symbols) {
    if (symbol.name != "matmul" || !symbol.exported()) continue;
    if (symbol.type == STT_FUNC) return {};
    if (symbol.type == STT_GNU_IFUNC)
      return forbidden("matmul is an ifunc (its resolver would run when the object is loaded)");
    return forbidden("matmul is not a function but " + symbol_type_name(symbol.type));
  }
  return {Status::format_error, "no matmul entry point (the object exports no function matmul)"};
}

Verdict check_load_time_code(const ElfObject &object, const ToolchainBaseline &baseline) {
  // Every defined symbol counts, not only exported ones: a static ifunc, or a hidden
  // definition (local after linking) of a hook the toolchain's start-up code calls.
  for (const auto *symbols : {&object.dynamic_symbols, &object.static_symbols})
    for (const ElfSymbol &symbol : *symbols) {
      if (!symbol.defined) continue;
      if (symbol.type == STT_GNU_IFUNC)
        return forbidden("the object defines " + symbol.name +
                         " as an ifunc (its resolver runs when the object is loaded)");
      if (symbol_policy::startup_hook(symbol.name) || baseline.imports.count(symbol.name) != 0)
        return forbidden("the object defines " + symbol.name + ", which the toolchain's " +
                         "start-up code calls when it is loaded or unloaded");
    }
  if (object.irelative_relocations > 0)
    return forbidden("the object has an ifunc relocation (a resolver runs when it is loaded)");

  // More entries or code than the toolchain's own: the candidate's runs too.
  struct Count {
    std::uint64_t found, own;
    const char *what, *section, *unit;
  };
  const Count counts[] = {
      {object.preinit_array_entries, baseline.preinit_array_entries,
       "the object has a constructor", ".preinit_array", "entries"},
      {object.init_array_entries, baseline.init_array_entries, "the object has a constructor",
       ".init_array", "entries"},
      {object.fini_array_entries, baseline.fini_array_entries, "the object has a destructor",
       ".fini_array", "entries"},
      {object.init_code_bytes, baseline.init_code_bytes,
       "the object adds code to .init, which runs when it is loaded", ".init", "bytes"},
      {object.fini_code_bytes, baseline.fini_code_bytes,
       "the object adds code to .fini, which runs when it is unloaded", ".fini", "bytes"},
  };
  for (const Count &count : counts)
    if (count.found > count.own)
      return forbidden(std::string(count.what) + " (" + count.section + ": " +
                       std::to_string(count.found) + " " + count.unit + ", the toolchain's own " +
                       std::to_string(count.own) + ")");
  return {};
}

Verdict check_segments(const ElfObject &object) {
  if (object.writable_executable_segment)
    return forbidden("the object has a writable and executable segment");
  if (object.executable_stack)
    return forbidden(
        "the object needs an executable stack (a nested function used through a pointer?)");
  return {};
}

const ImportPolicy &c_import_policy() {
  static const ImportPolicy policy{&symbol_policy::allowed_library, symbol_policy::kAllowedLibraries,
                                   &symbol_policy::import_refusal};
  return policy;
}

Verdict check_libraries(const ElfObject &object, const ToolchainBaseline &baseline, const ImportPolicy &policy) {
  for (const std::string &soname : object.needed)
    if (!policy.allowed_library(soname) && baseline.needed.count(soname) == 0)
      return forbidden("the object needs " + soname + " (only " + std::string(policy.allowed_libraries) +
                       " may be linked)");
  return {};
}

Verdict check_imports(const ElfObject &object, const ToolchainBaseline &baseline, const ImportPolicy &policy) {
  for (const ElfSymbol &symbol : object.dynamic_symbols) {
    if (symbol.defined || symbol.name.empty() || baseline.imports.count(symbol.name) != 0) continue;
    if (auto why = policy.import_refusal(symbol.name)) {
      const char *verb = symbol.type == STT_OBJECT || symbol.type == STT_TLS ? "uses" : "calls";
      return forbidden("the object " + std::string(verb) + " " + symbol.name + " (" + *why + ")");
    }
  }
  return {};
}

Verdict check_exports(const ElfObject &object, const ToolchainBaseline &baseline,
                      const LibrarySymbols &libraries) {
  for (const ElfSymbol &symbol : object.dynamic_symbols) {
    if (!symbol.exported() || symbol.name == "matmul" || baseline.exports.count(symbol.name) != 0)
      continue;
    const std::string defines = "the object defines " + symbol.name;
    if (symbol_policy::reserved_identifier(symbol.name))
      return forbidden(defines + ", a reserved identifier (names starting with __ or _ and a "
                                 "capital letter belong to the implementation)");
    if (symbol_policy::harness_name(symbol.name))
      return forbidden(defines + ", a symbol of the harness");
    if (auto library = libraries.library_defining(symbol.name))
      return forbidden(defines + ", a library symbol (of " + *library +
                       "); give helpers other names or make them static");
  }
  return {};
}

}  // namespace hpcreward
