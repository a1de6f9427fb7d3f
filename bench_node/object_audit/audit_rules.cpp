#include "bench_node/object_audit/audit_rules.hpp"

#include <string>


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
  for (const ElfSymbol &symbol : object.dynamic_symbols)
    if (symbol.exported() && symbol.name.starts_with("_Z6matmul"))
      return {Status::format_error, "no matmul entry point: the object exports " + symbol.name +
                                        ", a C++ name (declare matmul extern \"C\")"};
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
      if (startup_hook(symbol.name) || baseline.imports.count(symbol.name) != 0)
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

Verdict check_libraries(const ElfObject &object, const ToolchainBaseline &baseline, const ImportTable &table) {
  for (const std::string &soname : object.needed)
    if (!allowed_library(soname, table) && baseline.needed.count(soname) == 0)
      return forbidden("the object needs " + soname + " (only " + allowed_names_text(table.libraries) +
                       " may be linked)");
  return {};
}

Verdict check_imports(const ElfObject &object, const ToolchainBaseline &baseline, const ImportTable &table) {
  for (const ElfSymbol &symbol : object.dynamic_symbols) {
    if (symbol.defined || symbol.name.empty() || baseline.imports.count(symbol.name) != 0) continue;
    if (auto why = import_refusal(symbol.name, table)) {
      const char *verb = symbol.type == STT_OBJECT || symbol.type == STT_TLS ? "uses" : "calls";
      return forbidden("the object " + std::string(verb) + " " + symbol.name + " (" + *why + ")");
    }
  }
  return {};
}

namespace {

// gcc's vector variant (_ZGVbN2v_f) of a function f the object itself exports
// (`#pragma omp declare simd`); f is judged on its own. A variant named after anything else (a
// libc function the object does not define) stays a reserved identifier.
bool own_vector_variant(const ElfSymbol &symbol, const ElfObject &object) {
  const std::optional<std::string_view> base = vector_variant_base(symbol.name);
  if (!base || symbol.type != STT_FUNC) return false;
  for (const ElfSymbol &function : object.dynamic_symbols)
    if (function.name == *base && function.exported() && function.type == STT_FUNC) return true;
  return false;
}

}  // namespace

Verdict check_exports(const ElfObject &object, const ToolchainBaseline &baseline, const ExportTable &table) {
  for (const ElfSymbol &symbol : object.dynamic_symbols) {
    if (!symbol.exported() || symbol.name == "matmul" || baseline.exports.count(symbol.name) != 0) continue;
    if (own_vector_variant(symbol, object)) continue;
    if (auto why = export_refusal(symbol.name, table)) return forbidden("the object defines " + symbol.name + ", " + *why);
  }
  return {};
}

}  // namespace hpcreward
