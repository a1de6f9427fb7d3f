#pragma once
// What the toolchain itself puts into a candidate object, so the audit can tell it apart
// from what the candidate added: an empty matmul compiled with the same compiler and the
// same stage flags, read like a candidate. gcc -shared links crtbeginS.o, which adds one
// .init_array entry (frame_dummy) and one .fini_array entry (__do_global_dtors_aux), and
// crti.o/crtn.o, which make up .init and .fini; another gcc, other crt files or a flag
// that adds its own constructor (offloading, profiling) changes these counts, and the
// baseline follows. Counting entries is robust where naming them is not: a candidate can
// call its own constructor frame_dummy, but it cannot remove the toolchain's entry.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/object_audit/elf_object.hpp"

namespace hpcreward {

struct ToolchainBaseline {
  std::size_t init_array_entries = 0;
  std::size_t fini_array_entries = 0;
  std::size_t preinit_array_entries = 0;
  std::uint64_t init_code_bytes = 0;
  std::uint64_t fini_code_bytes = 0;
  std::set<std::string> imports;  // undefined dynamic symbols (the crt weak references)
  std::set<std::string> exports;  // defined dynamic symbols other than matmul
  std::set<std::string> needed;   // DT_NEEDED
};

ToolchainBaseline baseline_of(const ElfObject &object);

// Baselines per set of stage flags, compiled on first use and kept. Thread-safe.
class BaselineCache {
 public:
  // `work_root`: where the baseline builds go (a fresh directory each, removed after).
  // `source`: the empty candidate in the compiler's language (the language's AuditTable).
  BaselineCache(std::unique_ptr<Compiler> compiler, std::filesystem::path work_root, std::string source);

  // Throws std::runtime_error when the empty candidate does not compile or read: an
  // internal failure (the compiler or its limits), not the candidate's. Not cached then.
  const ToolchainBaseline &for_flags(const std::vector<std::string> &flags);

 private:
  std::unique_ptr<Compiler> compiler_;
  std::filesystem::path work_root_;
  std::string source_;
  std::mutex mutex_;
  std::map<std::vector<std::string>, ToolchainBaseline> baselines_;
};

}  // namespace hpcreward
