// The audit's rules on objects described by hand: the cases a C compiler does not make
// easily (or at all), and the exact reasons.
#include "bench_node/object_audit/audit_rules.hpp"

#include <gtest/gtest.h>

#include "bench_node/object_audit/c_symbol_policy.hpp"

namespace hpcreward {
namespace {

ElfSymbol exported(std::string name, unsigned type = STT_FUNC, unsigned binding = STB_GLOBAL) {
  return {std::move(name), type, binding, STV_DEFAULT, true};
}

ElfSymbol imported(std::string name, unsigned type = STT_FUNC, unsigned binding = STB_GLOBAL) {
  return {std::move(name), type, binding, STV_DEFAULT, false};
}

// What gcc -shared makes of an empty matmul.
ToolchainBaseline gcc_baseline() {
  ToolchainBaseline baseline;
  baseline.init_array_entries = 1;
  baseline.fini_array_entries = 1;
  baseline.init_code_bytes = 0x17;
  baseline.fini_code_bytes = 0x9;
  baseline.imports = {"__cxa_finalize", "_ITM_registerTMCloneTable",
                      "_ITM_deregisterTMCloneTable", "__gmon_start__"};
  return baseline;
}

ElfObject honest_object() {
  ElfObject object;
  object.dynamic_symbols = {imported("__cxa_finalize", STT_NOTYPE, STB_WEAK), exported("matmul"),
                            imported("sqrt")};
  object.needed = {"libm.so.6"};
  object.init_array_entries = 1;
  object.fini_array_entries = 1;
  object.init_code_bytes = 0x17;
  object.fini_code_bytes = 0x9;
  return object;
}

TEST(AuditRules, HonestObjectPasses) {
  const ElfObject object = honest_object();
  EXPECT_TRUE(check_entry_point(object).ok());
  EXPECT_TRUE(check_load_time_code(object, gcc_baseline()).ok());
  EXPECT_TRUE(check_segments(object).ok());
  EXPECT_TRUE(check_libraries(object, gcc_baseline(), c_import_table()).ok());
  EXPECT_TRUE(check_imports(object, gcc_baseline(), c_import_table()).ok());
  EXPECT_TRUE(check_exports(object, gcc_baseline(), c_export_table(std::make_shared<const LibrarySymbols>())).ok());
}

TEST(AuditRules, EntryPoint) {
  ElfObject object;
  EXPECT_EQ(check_entry_point(object).status, Status::format_error);
  object.dynamic_symbols = {imported("matmul")};  // imported, not defined
  EXPECT_EQ(check_entry_point(object).status, Status::format_error);
  object.dynamic_symbols = {exported("matmul", STT_FUNC, STB_WEAK)};  // dlsym finds it alike
  EXPECT_TRUE(check_entry_point(object).ok());
  object.dynamic_symbols = {exported("matmul", STT_NOTYPE)};  // a label in assembly
  Verdict verdict = check_entry_point(object);
  EXPECT_EQ(verdict.status, Status::forbidden);
  EXPECT_EQ(verdict.reason, "matmul is not a function but an untyped symbol");
  object.dynamic_symbols = {exported("matmul", STT_OBJECT)};
  EXPECT_EQ(check_entry_point(object).reason, "matmul is not a function but a data object");
  object.dynamic_symbols = {exported("_Z6matmuliiiPKdS0_Pd")};  // C++ linkage
  verdict = check_entry_point(object);
  EXPECT_EQ(verdict.status, Status::format_error);
  EXPECT_EQ(verdict.reason, "no matmul entry point: the object exports _Z6matmuliiiPKdS0_Pd, a C++ name "
                            "(declare matmul extern \"C\")");
}

TEST(AuditRules, LoadTimeCode) {
  const ToolchainBaseline baseline = gcc_baseline();
  ElfObject object = honest_object();
  object.irelative_relocations = 1;  // a local ifunc in a stripped object: no symbol to see
  EXPECT_EQ(check_load_time_code(object, baseline).reason,
            "the object has an ifunc relocation (a resolver runs when it is loaded)");

  object = honest_object();
  object.static_symbols = {{"pick", STT_GNU_IFUNC, STB_LOCAL, STV_DEFAULT, true}};
  EXPECT_EQ(check_load_time_code(object, baseline).reason,
            "the object defines pick as an ifunc (its resolver runs when the object is loaded)");

  object = honest_object();  // a hidden definition is local in the linked object
  object.static_symbols = {{"__gmon_start__", STT_FUNC, STB_LOCAL, STV_DEFAULT, true}};
  EXPECT_EQ(check_load_time_code(object, baseline).reason,
            "the object defines __gmon_start__, which the toolchain's start-up code calls when "
            "it is loaded or unloaded");

  object = honest_object();
  object.preinit_array_entries = 1;
  EXPECT_EQ(check_load_time_code(object, baseline).reason,
            "the object has a constructor (.preinit_array: 1 entries, the toolchain's own 0)");

  object = honest_object();
  object.init_array_entries = 3;
  EXPECT_EQ(check_load_time_code(object, baseline).reason,
            "the object has a constructor (.init_array: 3 entries, the toolchain's own 1)");

  object = honest_object();
  object.fini_code_bytes = 0x20;
  EXPECT_EQ(check_load_time_code(object, baseline).status, Status::forbidden);

  object = honest_object();  // fewer entries than the toolchain's (another toolchain): fine
  object.init_array_entries = 0;
  EXPECT_TRUE(check_load_time_code(object, baseline).ok());
}

TEST(AuditRules, Segments) {
  ElfObject object = honest_object();
  object.writable_executable_segment = true;
  EXPECT_EQ(check_segments(object).reason, "the object has a writable and executable segment");
  object = honest_object();
  object.executable_stack = true;
  EXPECT_EQ(check_segments(object).status, Status::forbidden);
}

TEST(AuditRules, Libraries) {
  ElfObject object = honest_object();
  object.needed = {"libm.so.6", "libgomp.so.1", "libopenblas.so.0"};
  EXPECT_EQ(check_libraries(object, gcc_baseline(), c_import_table()).reason,
            "the object needs libopenblas.so.0 (only libc.so.6, libm.so.6, libmvec.so.1, "
            "libgomp.so.1, libgcc_s.so.1, ld-linux* may be linked)");
  ToolchainBaseline profiling = gcc_baseline();  // a toolchain that links its own runtime
  profiling.needed = {"libopenblas.so.0"};
  EXPECT_TRUE(check_libraries(object, profiling, c_import_table()).ok());
}

TEST(AuditRules, Imports) {
  ElfObject object = honest_object();
  object.dynamic_symbols.push_back(imported("cblas_dgemm", STT_FUNC, STB_WEAK));
  const std::string allowed = "(only libm, memory and OpenMP runtime functions are allowed, and output to "
                              "stdout and stderr (printf, puts, fwrite, fflush, assert, abort, exit))";
  EXPECT_EQ(check_imports(object, gcc_baseline(), c_import_table()).reason, "the object calls cblas_dgemm " + allowed);
  object = honest_object();
  object.dynamic_symbols.push_back(imported("environ", STT_OBJECT));
  EXPECT_EQ(check_imports(object, gcc_baseline(), c_import_table()).reason, "the object uses environ " + allowed);
  ToolchainBaseline baseline = gcc_baseline();  // the toolchain's own references pass
  baseline.imports.insert("__cyg_profile_func_enter");
  object = honest_object();
  object.dynamic_symbols.push_back(imported("__cyg_profile_func_enter"));
  EXPECT_TRUE(check_imports(object, baseline, c_import_table()).ok());
}

TEST(AuditRules, Exports) {
  const ExportTable libraries = c_export_table(std::make_shared<const LibrarySymbols>());
  ElfObject object = honest_object();
  object.dynamic_symbols.push_back(exported("gettimeofday"));
  EXPECT_EQ(check_exports(object, gcc_baseline(), libraries).reason,
            "the object defines gettimeofday, a library symbol (of libc.so.6); give helpers other "
            "names or make them static");
  object = honest_object();
  object.dynamic_symbols.push_back(exported("_Secret", STT_OBJECT, STB_WEAK));
  EXPECT_NE(check_exports(object, gcc_baseline(), libraries).reason.find("reserved identifier"),
            std::string::npos);
  object = honest_object();
  object.dynamic_symbols.push_back(exported("_start"));
  EXPECT_EQ(check_exports(object, gcc_baseline(), libraries).reason,
            "the object defines _start, a symbol of the harness or the loader");
  object = honest_object();  // local and undefined symbols are not exports
  object.dynamic_symbols.push_back({"clock_gettime", STT_FUNC, STB_LOCAL, STV_DEFAULT, true});
  object.dynamic_symbols.push_back(imported("malloc"));
  object.dynamic_symbols.push_back(exported("pack_panel"));
  EXPECT_TRUE(check_exports(object, gcc_baseline(), libraries).ok());
  object = honest_object();  // gcc's vector variants of a function the object exports
  object.dynamic_symbols.push_back(exported("scaled"));
  for (const char *variant : {"_ZGVbN2vv_scaled", "_ZGVcM4vv_scaled", "_ZGVeN8uls1_scaled"})
    object.dynamic_symbols.push_back(exported(variant));
  EXPECT_TRUE(check_exports(object, gcc_baseline(), libraries).ok()) << check_exports(object, gcc_baseline(), libraries).reason;
  for (const char *variant : {"_ZGVbN2v_memcpy", "_ZGVbN2v_absent", "_ZGVbN2vv_scaled_x", "_ZGV_scaled"}) {
    object = honest_object();  // only variants of what it defines itself
    object.dynamic_symbols.push_back(exported("scaled"));
    object.dynamic_symbols.push_back(exported(variant));
    EXPECT_EQ(check_exports(object, gcc_baseline(), libraries).reason,
              "the object defines " + std::string(variant) + ", a reserved identifier (names starting with "
              "__ or _ and a capital letter belong to the implementation)");
  }
  object = honest_object();  // a variant of an imported function is not the object's own
  object.dynamic_symbols.push_back(imported("scaled"));
  object.dynamic_symbols.push_back(exported("_ZGVbN2v_scaled"));
  EXPECT_FALSE(check_exports(object, gcc_baseline(), libraries).ok());
  object = honest_object();  // OpenBLAS's names are not the executor's: a helper may have one
  object.dynamic_symbols.push_back(exported("dgemm_nn"));
  EXPECT_TRUE(check_exports(object, gcc_baseline(), libraries).ok());
  ToolchainBaseline baseline = gcc_baseline();  // what the toolchain exports itself passes
  baseline.exports = {"__bss_start", "_edata", "_end"};
  object = honest_object();
  object.dynamic_symbols.push_back(exported("__bss_start", STT_NOTYPE));
  EXPECT_TRUE(check_exports(object, baseline, libraries).ok());
}

}  // namespace
}  // namespace hpcreward
