#include "bench_node/object_audit/elf_object.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace hpcreward {

namespace {

using Failure = std::string;

std::string libelf_error() {
  const char *message = elf_errmsg(-1);
  return message != nullptr ? message : "unknown libelf error";
}

// The file and the libelf handle on it, closed together.
class ElfFile {
 public:
  ElfFile(const ElfFile &) = delete;
  ElfFile &operator=(const ElfFile &) = delete;
  explicit ElfFile(const std::filesystem::path &path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) {
    if (fd_ < 0) {
      error_ = std::string("cannot open it: ") + std::strerror(errno);
      return;
    }
    if (elf_version(EV_CURRENT) == EV_NONE) {
      error_ = "libelf is out of date: " + libelf_error();
      return;
    }
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
    if (elf_ == nullptr) error_ = libelf_error();
  }
  ~ElfFile() {
    if (elf_ != nullptr) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }
  Elf *get() const { return elf_; }
  const std::string &error() const { return error_; }

 private:
  int fd_ = -1;
  Elf *elf_ = nullptr;
  std::string error_;
};

std::string string_at(Elf *elf, std::size_t table, std::size_t offset) {
  const char *text = elf_strptr(elf, table, offset);
  return text != nullptr ? text : "";
}

// The relocation type that makes the loader call an ifunc resolver for a local symbol.
std::optional<unsigned> irelative_type(unsigned machine) {
  switch (machine) {
    case EM_X86_64: return R_X86_64_IRELATIVE;
    case EM_AARCH64: return R_AARCH64_IRELATIVE;
    default: return std::nullopt;
  }
}

void read_symbols(Elf *elf, Elf_Scn *section, const GElf_Shdr &header,
                  std::vector<ElfSymbol> &symbols) {
  Elf_Data *data = elf_getdata(section, nullptr);
  if (data == nullptr || header.sh_entsize == 0) return;
  const std::size_t count = header.sh_size / header.sh_entsize;
  for (std::size_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
    GElf_Sym raw;
    if (gelf_getsym(data, static_cast<int>(i), &raw) == nullptr) continue;
    ElfSymbol symbol;
    symbol.name = string_at(elf, header.sh_link, raw.st_name);
    symbol.type = GELF_ST_TYPE(raw.st_info);
    symbol.binding = GELF_ST_BIND(raw.st_info);
    symbol.visibility = GELF_ST_VISIBILITY(raw.st_other);
    symbol.defined = raw.st_shndx != SHN_UNDEF;
    symbols.push_back(std::move(symbol));
  }
}

void read_dynamic(Elf *elf, Elf_Scn *section, const GElf_Shdr &header, ElfObject &object) {
  Elf_Data *data = elf_getdata(section, nullptr);
  if (data == nullptr || header.sh_entsize == 0) return;
  const std::size_t address_bytes = gelf_fsize(elf, ELF_T_ADDR, 1, EV_CURRENT);
  const std::size_t count = header.sh_size / header.sh_entsize;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Dyn entry;
    if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr) continue;
    switch (entry.d_tag) {
      case DT_NEEDED:
        object.needed.push_back(string_at(elf, header.sh_link, entry.d_un.d_val));
        break;
      case DT_INIT_ARRAYSZ: object.init_array_entries = entry.d_un.d_val / address_bytes; break;
      case DT_FINI_ARRAYSZ: object.fini_array_entries = entry.d_un.d_val / address_bytes; break;
      case DT_PREINIT_ARRAYSZ:
        object.preinit_array_entries = entry.d_un.d_val / address_bytes;
        break;
      default: break;
    }
  }
}

std::size_t count_relocations(Elf_Scn *section, const GElf_Shdr &header, unsigned type) {
  Elf_Data *data = elf_getdata(section, nullptr);
  if (data == nullptr || header.sh_entsize == 0) return 0;
  const std::size_t count = header.sh_size / header.sh_entsize;
  std::size_t found = 0;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Xword info = 0;
    if (header.sh_type == SHT_RELA) {
      GElf_Rela rela;
      if (gelf_getrela(data, static_cast<int>(i), &rela) == nullptr) continue;
      info = rela.r_info;
    } else {
      GElf_Rel rel;
      if (gelf_getrel(data, static_cast<int>(i), &rel) == nullptr) continue;
      info = rel.r_info;
    }
    if (GELF_R_TYPE(info) == type) ++found;
  }
  return found;
}

std::optional<Failure> read_sections(Elf *elf, unsigned irelative, ElfObject &object) {
  std::size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return "no section names: " + libelf_error();
  for (Elf_Scn *section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr) return "bad section header: " + libelf_error();
    switch (header.sh_type) {
      case SHT_DYNSYM: read_symbols(elf, section, header, object.dynamic_symbols); break;
      case SHT_SYMTAB: read_symbols(elf, section, header, object.static_symbols); break;
      case SHT_DYNAMIC: read_dynamic(elf, section, header, object); break;
      case SHT_RELA:
      case SHT_REL:
        object.irelative_relocations += count_relocations(section, header, irelative);
        break;
      default: break;
    }
    const std::string name = string_at(elf, names, header.sh_name);
    if (name == ".init") object.init_code_bytes += header.sh_size;
    if (name == ".fini") object.fini_code_bytes += header.sh_size;
  }
  return std::nullopt;
}

std::optional<Failure> read_segments(Elf *elf, ElfObject &object) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return "no program headers: " + libelf_error();
  bool stack_header = false;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr)
      return "bad program header: " + libelf_error();
    if (header.p_type == PT_LOAD && (header.p_flags & PF_W) && (header.p_flags & PF_X))
      object.writable_executable_segment = true;
    if (header.p_type == PT_GNU_STACK) {
      stack_header = true;
      object.executable_stack = (header.p_flags & PF_X) != 0;
    }
  }
  // Without PT_GNU_STACK the loader gives the process an executable stack.
  if (!stack_header) object.executable_stack = true;
  return std::nullopt;
}

}  // namespace

std::variant<ElfObject, std::string> read_elf_object(const std::filesystem::path &path) {
  const ElfFile file(path);
  if (file.get() == nullptr) return file.error();
  Elf *elf = file.get();
  if (elf_kind(elf) != ELF_K_ELF) return std::string("not an ELF file");
  GElf_Ehdr header;
  if (gelf_getehdr(elf, &header) == nullptr) return "bad ELF header: " + libelf_error();
  if (header.e_type != ET_DYN) return std::string("not a shared object");
  const std::optional<unsigned> irelative = irelative_type(header.e_machine);
  if (!irelative) return "unsupported machine " + std::to_string(header.e_machine);

  ElfObject object;
  if (auto failure = read_sections(elf, *irelative, object)) return *failure;
  if (auto failure = read_segments(elf, object)) return *failure;
  return object;
}

std::string symbol_type_name(unsigned type) {
  switch (type) {
    case STT_NOTYPE: return "an untyped symbol";
    case STT_OBJECT: return "a data object";
    case STT_FUNC: return "a function";
    case STT_SECTION: return "a section";
    case STT_FILE: return "a file name";
    case STT_COMMON: return "a common data object";
    case STT_TLS: return "a thread-local data object";
    case STT_GNU_IFUNC: return "an ifunc";
    default: return "a symbol of type " + std::to_string(type);
  }
}

}  // namespace hpcreward
