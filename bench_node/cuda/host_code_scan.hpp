#pragma once
// The host half of a CUDA candidate object, disassembled (capstone, linear sweep over every
// executable loadable segment, never loaded): inline asm in host code is legal C++ and cannot be told
// from device PTX asm in the source, so the audit reads what the host code really is. An
// instruction that enters the kernel or reads a clock by itself is refused:
//   x86-64:  syscall, sysenter, int 0x80 (system calls); rdtsc, rdtscp, rdpmc (clocks and
//            counters: the harness owns the clock)
//   AArch64: svc, hvc, smc (system and hypervisor calls)
// Device code needs no such scan: a GPU thread has no system calls; what it can reach is
// the memory the CUDA context gives it.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hpcreward {

struct HostInstruction {
  std::uint64_t address = 0;
  std::string text;  // "syscall", "int 0x80"
  std::string why;   // "a system call"
};

struct HostCodeScan {
  bool read = false;  // false: the object could not be read or its machine is not known
  std::string error;
  std::size_t instructions = 0;        // decoded
  std::vector<HostInstruction> found;  // refused ones, in address order (at most 16)
};

HostCodeScan scan_host_code(const std::filesystem::path &object);

}  // namespace hpcreward
