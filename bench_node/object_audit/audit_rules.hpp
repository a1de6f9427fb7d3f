#pragma once
// The rules of the object audit, each a pure function of what was read from the object
// (and of the toolchain's baseline), so each is testable without a compiler. Each returns
// the first violation it finds as a Verdict, or ok.
#include <optional>
#include <string>
#include <string_view>

#include "bench_node/object_audit/elf_object.hpp"
#include "bench_node/object_audit/library_symbols.hpp"
#include "bench_node/object_audit/toolchain_baseline.hpp"
#include "common/status.hpp"

namespace hpcreward {

// matmul is exported as a function: none is format_error; a data object, an ifunc or an
// untyped symbol (bytes the source checks could not see as code) is forbidden.
Verdict check_entry_point(const ElfObject &object);

// Nothing of the candidate's runs when the object is loaded or unloaded: no ifunc (symbol
// or IRELATIVE relocation), no definition of a hook the toolchain's start-up code calls
// (__gmon_start__, __cxa_finalize, ...), no .init_array/.preinit_array/.fini_array entries
// and no .init or .fini code beyond the toolchain's own.
Verdict check_load_time_code(const ElfObject &object, const ToolchainBaseline &baseline);

// No writable and executable segment (self-modifying code), no executable stack.
Verdict check_segments(const ElfObject &object);

// The lists behind check_libraries and check_imports: C's (symbol_policy.hpp) by default,
// CUDA's in bench_node/cuda/cuda_symbol_policy.hpp.
struct ImportPolicy {
  bool (*allowed_library)(std::string_view soname);
  std::string_view allowed_libraries;  // for the reason
  std::optional<std::string> (*import_refusal)(std::string_view name);
};
const ImportPolicy &c_import_policy();

// DT_NEEDED only names allowed libraries or the toolchain's.
Verdict check_libraries(const ElfObject &object, const ToolchainBaseline &baseline,
                        const ImportPolicy &policy = c_import_policy());

// Every imported symbol is on the allow-list or the toolchain's.
Verdict check_imports(const ElfObject &object, const ToolchainBaseline &baseline,
                      const ImportPolicy &policy = c_import_policy());

// No exported symbol is a library's, the harness's or a reserved identifier.
Verdict check_exports(const ElfObject &object, const ToolchainBaseline &baseline,
                      const LibrarySymbols &libraries);

}  // namespace hpcreward
