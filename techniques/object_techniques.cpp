#include "techniques/object_techniques.hpp"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <sstream>

namespace hpcreward::techniques {

namespace {

bool starts(const char *text, const char *prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

// Imports only: an object that merely defines a function named omp_* uses no runtime.
void read_symbols(Elf *elf, Elf_Scn *section, const GElf_Shdr &header, ObjectTechniques &out) {
  Elf_Data *data = elf_getdata(section, nullptr);
  if (data == nullptr || header.sh_entsize == 0) return;
  const std::size_t count = header.sh_size / header.sh_entsize;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Sym symbol;
    if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) continue;
    if (symbol.st_shndx != SHN_UNDEF) continue;
    const char *name = elf_strptr(elf, header.sh_link, symbol.st_name);
    if (name == nullptr || !(starts(name, "GOMP_") || starts(name, "omp_"))) continue;
    bool known = false;
    for (const std::string &seen : out.omp_imports) known = known || seen == name;
    if (!known) out.omp_imports.emplace_back(name);
  }
}

// Linear sweep; capstone skips nothing on an undecodable byte, so we step over it by one
// (padding or data in .text would otherwise end the sweep early).
void scan_code(csh handle, const GElf_Shdr &header, Elf_Data *data, ObjectTechniques &out) {
  const auto *bytes = static_cast<const std::uint8_t *>(data->d_buf);
  std::size_t size = data->d_size;
  std::uint64_t address = header.sh_addr;
  cs_insn *insn = cs_malloc(handle);
  while (size > 0) {
    if (!cs_disasm_iter(handle, &bytes, &size, &address, insn)) {
      ++bytes, --size, ++address;
      continue;
    }
    if (std::strstr(insn->op_str, "zmm") != nullptr) {
      if (out.zmm_instructions++ == 0) {
        out.first_zmm_address = insn->address;
        out.first_zmm_instruction = std::string(insn->mnemonic) + " " + insn->op_str;
      }
    }
  }
  cs_free(insn, 1);
}

}  // namespace

ObjectTechniques detect_in_object(const std::filesystem::path &shared_object) {
  ObjectTechniques out;
  if (elf_version(EV_CURRENT) == EV_NONE) return out.error = "libelf unusable", out;
  const int fd = ::open(shared_object.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out.error = "cannot open " + shared_object.string(), out;
  std::unique_ptr<Elf, int (*)(Elf *)> elf(elf_begin(fd, ELF_C_READ, nullptr), elf_end);
  csh handle = 0;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF || gelf_getclass(elf.get()) != ELFCLASS64) {
    out.error = "not a 64-bit ELF object";
  } else if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
    out.error = "capstone unusable";
  } else {
    out.read = true;
    for (Elf_Scn *section = elf_nextscn(elf.get(), nullptr); section != nullptr;
         section = elf_nextscn(elf.get(), section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == nullptr) continue;
      if (header.sh_type == SHT_DYNSYM || header.sh_type == SHT_SYMTAB)
        read_symbols(elf.get(), section, header, out);
      if (header.sh_type == SHT_PROGBITS && (header.sh_flags & SHF_EXECINSTR) != 0) {
        Elf_Data *data = elf_getdata(section, nullptr);
        if (data != nullptr && data->d_buf != nullptr) scan_code(handle, header, data, out);
      }
    }
    cs_close(&handle);
  }
  elf.reset();
  ::close(fd);
  return out;
}

}  // namespace hpcreward::techniques
