#include "techniques/simd_clones.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

namespace hpcreward::techniques {

namespace {

struct Range {
  std::string name;
  std::uint64_t begin = 0, end = 0;  // addresses
  bool disable = false;
};

struct CodeSection {
  std::uint64_t address = 0, size = 0, offset = 0;
};

}  // namespace

DisabledClones disable_simd_clones_beyond(const std::filesystem::path &shared_object, VectorIsa target) {
  DisabledClones out;
  if (elf_version(EV_CURRENT) == EV_NONE) return out.error = "libelf unusable", out;
  const int fd = ::open(shared_object.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return out.error = "cannot open " + shared_object.string(), out;
  std::vector<Range> functions;
  std::vector<CodeSection> code;
  {
    std::unique_ptr<Elf, int (*)(Elf *)> elf(elf_begin(fd, ELF_C_READ, nullptr), elf_end);
    if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
      ::close(fd);
      return out.error = "not an ELF object", out;
    }
    for (Elf_Scn *section = elf_nextscn(elf.get(), nullptr); section != nullptr;
         section = elf_nextscn(elf.get(), section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == nullptr) continue;
      if (header.sh_type == SHT_PROGBITS && (header.sh_flags & SHF_EXECINSTR) != 0)
        code.push_back({header.sh_addr, header.sh_size, header.sh_offset});
      if (header.sh_type != SHT_SYMTAB && header.sh_type != SHT_DYNSYM) continue;
      Elf_Data *data = elf_getdata(section, nullptr);
      if (data == nullptr || header.sh_entsize == 0) continue;
      for (std::size_t i = 1; i < header.sh_size / header.sh_entsize; ++i) {
        GElf_Sym symbol;
        if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) continue;
        if (GELF_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF || symbol.st_size == 0) continue;
        const char *name = elf_strptr(elf.get(), header.sh_link, symbol.st_name);
        const std::optional<VectorIsa> isa = simd_clone_isa(name != nullptr ? name : "");
        functions.push_back({name != nullptr ? name : "", symbol.st_value, symbol.st_value + symbol.st_size,
                             isa && *isa > target});
      }
    }
  }
  bool failed = false;
  for (const Range &clone : functions) {
    if (!clone.disable) continue;
    // ICF may fold a variant into a kept function: its bytes then stay (detection judges them).
    const bool shared = std::any_of(functions.begin(), functions.end(), [&](const Range &other) {
      return !other.disable && other.begin < clone.end && clone.begin < other.end;
    });
    const auto section = std::find_if(code.begin(), code.end(), [&](const CodeSection &s) {
      return s.address <= clone.begin && clone.end <= s.address + s.size;
    });
    if (shared || section == code.end()) continue;
    const std::vector<unsigned char> traps(clone.end - clone.begin, 0xcc);  // int3
    const off_t at = static_cast<off_t>(section->offset + (clone.begin - section->address));
    if (::pwrite(fd, traps.data(), traps.size(), at) != static_cast<ssize_t>(traps.size())) failed = true;
    if (std::find(out.names.begin(), out.names.end(), clone.name) == out.names.end()) out.names.push_back(clone.name);
  }
  if (::close(fd) != 0 || failed) return out.error = "cannot write " + shared_object.string(), out;
  out.done = true;
  return out;
}

}  // namespace hpcreward::techniques
