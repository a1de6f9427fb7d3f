#pragma once
// The facts of a compiled shared object that the audit judges, read with elfutils' libelf
// into plain structs: its symbols, the libraries it needs, what the dynamic loader runs
// when it loads the object, and its memory permissions. Reading never maps or runs the
// object; nothing here knows the rules.
#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace hpcreward {

struct ElfSymbol {
  std::string name;
  unsigned type = STT_NOTYPE;  // STT_FUNC, STT_OBJECT, STT_GNU_IFUNC, ...
  unsigned binding = STB_LOCAL;
  unsigned visibility = STV_DEFAULT;
  bool defined = false;  // false: an import (st_shndx == SHN_UNDEF)

  // Defined here and visible to a loader: what the object exports.
  bool exported() const {
    return defined && !name.empty() && (binding == STB_GLOBAL || binding == STB_WEAK || binding == STB_GNU_UNIQUE);
  }
};

struct ElfObject {
  std::vector<ElfSymbol> dynamic_symbols;  // .dynsym: what the object imports and exports
  std::vector<ElfSymbol> static_symbols;   // .symtab, local ones included (empty if stripped)
  std::vector<std::string> needed;         // DT_NEEDED sonames

  // Code the dynamic loader runs on load and unload: the entries of the arrays as the
  // dynamic section sizes them (what ld.so reads), and the sizes of the .init/.fini code.
  std::size_t init_array_entries = 0;
  std::size_t fini_array_entries = 0;
  std::size_t preinit_array_entries = 0;
  std::uint64_t init_code_bytes = 0;
  std::uint64_t fini_code_bytes = 0;
  std::size_t irelative_relocations = 0;  // each one calls an ifunc resolver at load time

  bool writable_executable_segment = false;  // a PT_LOAD both PF_W and PF_X
  bool executable_stack = false;  // PT_GNU_STACK with PF_X, or none (the loader's default)
};

// The object at `path`, or why it could not be read (not an ELF shared object, truncated,
// an unsupported machine).
std::variant<ElfObject, std::string> read_elf_object(const std::filesystem::path &path);

// "a function", "a data object", "an ifunc", ... for reasons.
std::string symbol_type_name(unsigned type);

}  // namespace hpcreward
