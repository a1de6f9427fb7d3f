#include "techniques/object_techniques.hpp"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

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

bool uses_zmm(const cs_insn *insn) { return std::strstr(insn->op_str, "zmm") != nullptr; }

// What a hidden kernel would be made of: vector arithmetic, loads and stores on zmm (or ymm:
// an fma, add, mul, mov or broadcast), not any stray byte pattern that happens to name one.
bool vector_arithmetic(const cs_insn *insn, const char *registers) {
  if (std::strstr(insn->op_str, registers) == nullptr) return false;
  for (const char *family : {"vfmadd", "vfmsub", "vfnmadd", "vfnmsub", "vmul", "vadd", "vsub", "vmov", "vbroadcast"})
    if (starts(insn->mnemonic, family)) return true;
  return false;
}

bool zmm_arithmetic(const cs_insn *insn) { return vector_arithmetic(insn, "zmm"); }

// The first byte after the prefixes a VEX or EVEX instruction may carry (segment, 0x67).
std::size_t skip_prefixes(const std::uint8_t *bytes, std::size_t size) {
  std::size_t at = 0;
  while (at < size && (bytes[at] == 0x26 || bytes[at] == 0x2e || bytes[at] == 0x36 || bytes[at] == 0x3e ||
                       bytes[at] == 0x64 || bytes[at] == 0x65 || bytes[at] == 0x67))
    ++at;
  return at;
}

// In 64-bit mode 0xc5 and 0xc4 always begin a VEX prefix (LDS and LES are gone); 0xc4's map
// must be 1 to 3.
bool valid_vex_prefix(const std::uint8_t *bytes, std::size_t size) {
  if (size >= 4 && bytes[0] == 0xc5) return true;
  return size >= 5 && bytes[0] == 0xc4 && (bytes[1] & 0x1f) >= 1 && (bytes[1] & 0x1f) <= 3;
}

// Every AVX-512 instruction starts with the four-byte EVEX prefix: 0x62, then P0 with its two
// reserved bits clear and a map of 1 to 3, then P1 with its fixed bit set. Bytes that break these
// fault on the CPU (#UD), whatever a lenient disassembler makes of them.
bool valid_evex_prefix(const std::uint8_t *bytes, std::size_t size) {
  return size >= 6 && bytes[0] == 0x62 && (bytes[1] & 0x0c) == 0 && (bytes[1] & 0x03) != 0 && (bytes[2] & 0x04) != 0;
}

void note(int &count, std::uint64_t &first_address, std::string &first_text, const cs_insn *insn) {
  if (count++ == 0) {
    first_address = insn->address;
    first_text = std::string(insn->mnemonic) + " " + insn->op_str;
  }
}

// Linear sweep; capstone skips nothing on an undecodable byte, so we step over it by one
// (padding or data in .text would otherwise end the sweep early). Then every offset the sweep
// did not start an instruction at, decoded on its own.
void scan_code(csh handle, const GElf_Shdr &header, Elf_Data *data, ObjectTechniques &out) {
  const auto *start = static_cast<const std::uint8_t *>(data->d_buf);
  const std::size_t total = data->d_size;
  std::vector<bool> instruction_start(total, false);
  const std::uint8_t *bytes = start;
  std::size_t size = total;
  std::uint64_t address = header.sh_addr;
  cs_insn *insn = cs_malloc(handle);
  while (size > 0) {
    if (!cs_disasm_iter(handle, &bytes, &size, &address, insn)) {
      if (valid_evex_prefix(bytes, size) && out.avx512_instructions++ == 0) {
        out.first_avx512_address = address;
        out.first_avx512_instruction = "an EVEX instruction the disassembler cannot decode";
      }
      ++bytes, --size, ++address;
      continue;
    }
    instruction_start[insn->address - header.sh_addr] = true;
    if (uses_zmm(insn)) note(out.zmm_instructions, out.first_zmm_address, out.first_zmm_instruction, insn);
    const std::size_t opcode = skip_prefixes(insn->bytes, insn->size);
    const bool evex = opcode < insn->size && insn->bytes[opcode] == 0x62;
    if (evex || uses_zmm(insn)) note(out.avx512_instructions, out.first_avx512_address, out.first_avx512_instruction, insn);
    else if (valid_vex_prefix(insn->bytes + opcode, insn->size - opcode))
      note(out.vex_instructions, out.first_vex_address, out.first_vex_instruction, insn);
  }
  for (std::size_t offset = 0; offset < total; ++offset) {
    if (instruction_start[offset]) continue;
    const bool evex = valid_evex_prefix(start + offset, total - offset);
    if (!evex && !valid_vex_prefix(start + offset, total - offset)) continue;
    bytes = start + offset;
    size = total - offset;
    address = header.sh_addr + offset;
    if (!cs_disasm_iter(handle, &bytes, &size, &address, insn)) continue;
    if (evex && zmm_arithmetic(insn))
      note(out.hidden_zmm_instructions, out.first_hidden_zmm_address, out.first_hidden_zmm_instruction, insn);
    else if (!evex && vector_arithmetic(insn, "ymm"))
      note(out.hidden_ymm_instructions, out.first_hidden_ymm_address, out.first_hidden_ymm_instruction, insn);
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
