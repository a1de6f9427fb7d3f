#pragma once
// Which symbols a candidate object may import and export, and which libraries it may need.
// The rules are the same for C and CUDA; the lists are each language's (c_symbol_policy.hpp,
// ../cuda/cuda_symbol_policy.hpp). Names the toolchain itself owns, whatever the language,
// are here too.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bench_node/checks/name_table.hpp"

namespace hpcreward {

struct ImportTable {
  // Exact names and families ("GOMP_*"); a refused entry says what the name is refused for.
  NameTable symbols;
  // Families no list can name (libm's f and l variants, C++'s std::__throw_*); null: none.
  bool (*allowed_family)(std::string_view name) = nullptr;
  // Refused families with their reason (CUDA: the driver API, cu + a capital); null: none.
  std::optional<std::string_view> (*refused_family)(std::string_view name) = nullptr;
  std::string_view unlisted;  // why anything else is refused: what is allowed
  // CUDA: cudaMemcpyAsync_ptsz and _ptds (--default-stream per-thread) are cudaMemcpyAsync.
  bool per_thread_stream_names = false;
  NameTable libraries;  // DT_NEEDED sonames ("libc.so.6", "ld-linux*")
};

// nullopt when the object may import `name`; otherwise why not.
std::optional<std::string> import_refusal(std::string_view name, const ImportTable &table);

// The reason when `name` is refused for what it is (a refused entry or family), not merely
// for not being listed: what a link failure on the name is judged by.
std::optional<std::string> named_import_refusal(std::string_view name, const ImportTable &table);

bool allowed_library(std::string_view soname, const ImportTable &table);

struct ExportTable {
  bool mangled_names = false;  // C++ names (_Z...) are the candidate's own, not reserved ones
  // The language's names a candidate may not define, with the reason (C: the system
  // libraries' symbols; CUDA: the CUDA runtime's, driver's and libraries'); null: none.
  std::function<std::optional<std::string>(const std::string &name)> taken;
};

// nullopt when the object may export `name`; otherwise why not ("a reserved identifier ...").
std::optional<std::string> export_refusal(const std::string &name, const ExportTable &table);

// The crtbeginS.o references (__gmon_start__, __cxa_finalize, _ITM_*TMCloneTable) that the
// toolchain's own load and unload code calls when something defines them: a candidate that
// defines one, even hidden, runs code at load or unload time.
bool startup_hook(std::string_view name);
std::span<const std::string_view> startup_hooks();

// Names C reserves for the implementation in every scope: `__x` and `_X`. The toolchain's,
// C++'s mangled (_Z...) and the harness's internal names all look like this.
bool reserved_identifier(std::string_view name);

// The function a vector variant is named after, when `name` is one: the OpenMP / x86 vector
// function ABI's _ZGV<isa><mask><lanes><parameters>_<function> (gcc's clones of a
// `#pragma omp declare simd` function, libmvec's _ZGVdN4v_exp); nullopt otherwise.
std::optional<std::string_view> vector_variant_base(std::string_view name);

// Names the harness or the loader owns besides the libraries' exports: main, _start,
// _init, _fini.
bool harness_name(std::string_view name);

}  // namespace hpcreward
