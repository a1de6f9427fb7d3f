#pragma once
// What a compiled candidate object shows, read with libelf (never mapped or loaded):
// imported OpenMP runtime symbols, and zmm register operands, EVEX-encoded (AVX-512) and
// VEX-encoded (AVX, AVX2) instructions in its executable sections (capstone x86-64
// disassembly, linear sweep), and zmm and ymm instructions hidden inside other instructions'
// bytes (decoded at every byte offset that is not an instruction start of the sweep): a
// candidate that takes over its own control flow can jump into a constant's bytes, so code the
// sweep never sees can still run. Which of it a stage refuses depends on the ISA its flags
// target (technique_detection.hpp).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hpcreward::techniques {

struct ObjectTechniques {
  bool read = false;                      // false: not a readable ELF object (see error)
  std::string error;
  std::vector<std::string> omp_imports;   // undefined GOMP_* / omp_* symbols
  int zmm_instructions = 0;               // instructions with a zmm operand
  std::uint64_t first_zmm_address = 0;
  std::string first_zmm_instruction;      // "vfmadd231pd zmm0, zmm1, zmm2"
  int hidden_zmm_instructions = 0;        // zmm arithmetic decoded at offsets the sweep steps over
  std::uint64_t first_hidden_zmm_address = 0;
  std::string first_hidden_zmm_instruction;
  // AVX-512 in the sweep: EVEX-encoded (0x62 at an instruction start; capstone 4 cannot decode
  // every one, e.g. vfmadd132pd zmm, so undecoded ones count too) or with a zmm operand.
  int avx512_instructions = 0;
  std::uint64_t first_avx512_address = 0;
  std::string first_avx512_instruction;
  int vex_instructions = 0;               // VEX-encoded (0xc4, 0xc5): AVX and AVX2, in the sweep
  std::uint64_t first_vex_address = 0;
  std::string first_vex_instruction;
  int hidden_ymm_instructions = 0;        // VEX ymm arithmetic decoded at offsets the sweep steps over
  std::uint64_t first_hidden_ymm_address = 0;
  std::string first_hidden_ymm_instruction;
  // Vector variants for ISAs beyond the stage's, made unreachable before this was read
  // (simd_clones.hpp); filled in by the caller that disabled them.
  std::vector<std::string> disabled_simd_clones;
};

// Hidden zmm instructions from this many on count as AVX-512 in an object with no zmm code in
// sight, in a stage whose flags target AVX-512 (technique_detection.hpp): there, one may decode
// by chance. In a stage that does not, one counts (none in 341 honest objects, README.md).
inline constexpr int kHiddenZmmRefused = 2;
// Hidden VEX ymm arithmetic from this many on is AVX code in a stage compiled for SSE2: VEX
// prefixes (0xc4, 0xc5) are common bytes.
inline constexpr int kHiddenYmmRefused = 2;

ObjectTechniques detect_in_object(const std::filesystem::path &shared_object);

}  // namespace hpcreward::techniques
