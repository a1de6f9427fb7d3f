#pragma once
// The rules of the object audit, each a pure function of what was read from the object, the
// toolchain's baseline and the language's tables (symbol_rules.hpp), so each is testable
// without a compiler. Each returns the first violation it finds as a Verdict, or ok.
#include "bench_node/object_audit/elf_object.hpp"
#include "bench_node/object_audit/symbol_rules.hpp"
#include "bench_node/object_audit/toolchain_baseline.hpp"
#include "common/status.hpp"

namespace hpcreward {

// matmul is exported as a function: none is format_error (naming a C++-mangled matmul when
// there is one: extern "C" is missing); a data object, an ifunc or an untyped symbol (bytes
// the source checks could not see as code) is forbidden.
Verdict check_entry_point(const ElfObject &object);

// Nothing of the candidate's runs when the object is loaded or unloaded: no ifunc (symbol
// or IRELATIVE relocation), no definition of a hook the toolchain's start-up code calls
// (__gmon_start__, __cxa_finalize, ...), no .init_array/.preinit_array/.fini_array entries
// and no .init or .fini code beyond the toolchain's own.
Verdict check_load_time_code(const ElfObject &object, const ToolchainBaseline &baseline);

// No writable and executable segment (self-modifying code), no executable stack.
Verdict check_segments(const ElfObject &object);

// DT_NEEDED only names allowed libraries or the toolchain's.
Verdict check_libraries(const ElfObject &object, const ToolchainBaseline &baseline, const ImportTable &table);

// Every imported symbol is on the allow-list or the toolchain's.
Verdict check_imports(const ElfObject &object, const ToolchainBaseline &baseline, const ImportTable &table);

// No exported symbol is the harness's, a reserved identifier or one the language keeps.
Verdict check_exports(const ElfObject &object, const ToolchainBaseline &baseline, const ExportTable &table);

}  // namespace hpcreward
