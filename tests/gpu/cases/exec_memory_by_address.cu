// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// Host code made at run time: `mprotect` found by address (opens_file_by_address.cu) makes a
// page of its own executable, and the candidate calls into it. The GPU filter kills PROT_EXEC
// after the load. C is computed only if the made code ran, so `ok` would mean it did.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
// The ELF-64 layouts it reads (a candidate may not include <elf.h>).
struct Header { unsigned char ident[16]; std::uint16_t type, machine; std::uint32_t version;
                std::uint64_t entry, phoff, shoff; std::uint32_t flags;
                std::uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx; };
struct Segment { std::uint32_t type, flags; std::uint64_t offset, vaddr, paddr, filesz, memsz, align; };
struct Dynamic { std::int64_t tag; std::uint64_t value; };
struct Symbol { std::uint32_t name; unsigned char info, other; std::uint16_t shndx; std::uint64_t value, size; };

static std::uintptr_t libc_base() {
  const void *known = reinterpret_cast<const void *>(&memcpy);
  std::uintptr_t page = reinterpret_cast<std::uintptr_t>(known) & ~std::uintptr_t{4095};
  for (int i = 0; i < 4096; ++i, page -= 4096)  // libc's mappings are contiguous below its text
    if (std::memcmp(reinterpret_cast<const void *>(page), "\x7f" "ELF", 4) == 0) return page;
  return 0;
}

static bool same_name(const char *a, const char *b) {
  while (*a != 0 && *a == *b) ++a, ++b;
  return *a == *b;
}

static void *libc_symbol(const char *wanted) {
  const std::uintptr_t base = libc_base();
  if (base == 0) return nullptr;
  const Header *header = reinterpret_cast<const Header *>(base);
  const Segment *segments = reinterpret_cast<const Segment *>(base + header->phoff);
  const Dynamic *dynamic = nullptr;
  for (int i = 0; i < header->phnum; ++i)
    if (segments[i].type == 2) dynamic = reinterpret_cast<const Dynamic *>(base + segments[i].vaddr);  // PT_DYNAMIC
  if (dynamic == nullptr) return nullptr;
  std::uintptr_t symtab = 0, strtab = 0;
  for (; dynamic->tag != 0; ++dynamic) {
    if (dynamic->tag == 6) symtab = dynamic->value;  // DT_SYMTAB (relocated by the loader)
    if (dynamic->tag == 5) strtab = dynamic->value;  // DT_STRTAB
  }
  if (symtab == 0 || strtab <= symtab) return nullptr;
  for (const Symbol *symbol = reinterpret_cast<const Symbol *>(symtab);
       reinterpret_cast<std::uintptr_t>(symbol + 1) <= strtab; ++symbol)
    if (symbol->value != 0 && same_name(reinterpret_cast<const char *>(strtab + symbol->name), wanted))
      return reinterpret_cast<void *>(base + symbol->value);
  return nullptr;
}

alignas(4096) static unsigned char code[8192];

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  typedef int (*protect_t)(void *, unsigned long, int);
  typedef int (*made_t)();
  protect_t protect = nullptr;
  void *found = libc_symbol("mprotect");
  std::memcpy(&protect, &found, sizeof found);
  if (protect == nullptr) return;
  const unsigned char stub[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};  // mov eax, 42; ret
  std::memcpy(code, stub, sizeof stub);
  if (protect(code, 4096, 1 | 4) != 0) return;  // PROT_READ | PROT_EXEC
  made_t made = nullptr;
  unsigned char *entry = code;
  std::memcpy(&made, &entry, sizeof made);
  if (made() != 42) return;
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
