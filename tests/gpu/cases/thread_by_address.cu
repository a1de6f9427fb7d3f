// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// A helper thread of the candidate's own, started with libc's `pthread_create` found by
// address (no forbidden name: see opens_file_by_address.cu): such a thread could rewrite what
// the executor reports after the executor wrote it. The GPU filter kills clone and clone3 after
// the load (the driver's threads were started with the context). C is computed only once the
// thread ran, so `ok` would mean a thread was made.
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

static void *helper(void *flag) {
  *static_cast<volatile int *>(flag) = 1;
  return nullptr;
}

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  typedef int (*create_t)(unsigned long *, const void *, void *(*)(void *), void *);
  typedef int (*join_t)(unsigned long, void **);
  create_t create = nullptr;
  join_t join = nullptr;
  void *found_create = libc_symbol("pthread_create"), *found_join = libc_symbol("pthread_join");
  std::memcpy(&create, &found_create, sizeof found_create);
  std::memcpy(&join, &found_join, sizeof found_join);
  if (create == nullptr || join == nullptr) return;
  static volatile int ran = 0;
  unsigned long thread = 0;
  if (create(&thread, nullptr, helper, const_cast<int *>(&ran)) != 0) return;
  join(thread, nullptr);
  if (!ran) return;
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
