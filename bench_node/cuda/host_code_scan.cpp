#include "bench_node/cuda/host_code_scan.hpp"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <memory>

namespace hpcreward {

namespace {

constexpr std::size_t kMaxFound = 16;

// Why the instruction is refused, or nullptr.
const char *refusal(unsigned machine, const cs_insn &insn) {
  const std::string_view mnemonic = insn.mnemonic;
  if (machine == EM_X86_64) {
    if (mnemonic == "syscall" || mnemonic == "sysenter") return "a system call";
    if (mnemonic == "int" && std::strcmp(insn.op_str, "0x80") == 0) return "a system call";
    if (mnemonic == "rdtsc" || mnemonic == "rdtscp" || mnemonic == "rdpmc")
      return "reads a clock or counter (the harness owns the clock)";
    return nullptr;
  }
  if (mnemonic == "svc") return "a system call";
  if (mnemonic == "hvc" || mnemonic == "smc") return "a hypervisor or monitor call";
  return nullptr;
}

// Linear sweep over `size` bytes loaded at `address`; an undecodable byte (or word) is
// stepped over, so padding does not end the sweep.
void scan(csh handle, unsigned machine, const std::uint8_t *bytes, std::size_t size,
          std::uint64_t address, HostCodeScan &out) {
  const std::size_t step = machine == EM_X86_64 ? 1 : 4;
  cs_insn *insn = cs_malloc(handle);
  while (size > 0) {
    if (!cs_disasm_iter(handle, &bytes, &size, &address, insn)) {
      const std::size_t skip = std::min(step, size);
      bytes += skip, size -= skip, address += skip;
      continue;
    }
    ++out.instructions;
    if (const char *why = refusal(machine, *insn); why != nullptr && out.found.size() < kMaxFound) {
      std::string text = insn->mnemonic;
      if (insn->op_str[0] != '\0') text += std::string(" ") + insn->op_str;
      out.found.push_back({insn->address, std::move(text), why});
    }
  }
  cs_free(insn, 1);
}

// Every executable loadable segment: what the loader maps executable, whatever sections
// (or none) the bytes belong to.
void scan_segments(Elf *elf, csh handle, unsigned machine, HostCodeScan &out) {
  std::size_t file_size = 0;
  const char *file = elf_rawfile(elf, &file_size);
  std::size_t count = 0;
  if (file == nullptr || elf_getphdrnum(elf, &count) != 0) {
    out.read = false;
    out.error = "the object's program headers can't be read";
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD || (phdr.p_flags & PF_X) == 0) continue;
    if (phdr.p_offset > file_size || phdr.p_filesz > file_size - phdr.p_offset) {
      out.read = false;
      out.error = "an executable segment lies outside the file";
      return;
    }
    scan(handle, machine, reinterpret_cast<const std::uint8_t *>(file) + phdr.p_offset,
         phdr.p_filesz, phdr.p_vaddr, out);
  }
}

}  // namespace

HostCodeScan scan_host_code(const std::filesystem::path &object) {
  HostCodeScan out;
  if (elf_version(EV_CURRENT) == EV_NONE) return out.error = "libelf unusable", out;
  const int fd = ::open(object.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return out.error = "cannot open " + object.string(), out;
  std::unique_ptr<Elf, int (*)(Elf *)> elf(elf_begin(fd, ELF_C_READ, nullptr), elf_end);
  GElf_Ehdr ehdr;
  csh handle = 0;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF || gelf_getehdr(elf.get(), &ehdr) == nullptr) {
    out.error = "not an ELF object";
  } else if (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_AARCH64) {
    out.error = "host code for ELF machine " + std::to_string(ehdr.e_machine) +
                " can't be audited (x86-64 and AArch64 can)";
  } else if (cs_open(ehdr.e_machine == EM_X86_64 ? CS_ARCH_X86 : CS_ARCH_ARM64,
                     ehdr.e_machine == EM_X86_64 ? CS_MODE_64 : CS_MODE_ARM, &handle) != CS_ERR_OK) {
    out.error = "capstone unusable";
  } else {
    out.read = true;
    scan_segments(elf.get(), handle, ehdr.e_machine, out);
    cs_close(&handle);
  }
  elf.reset();
  ::close(fd);
  return out;
}

}  // namespace hpcreward
