#pragma once
// What a compiled candidate object shows, read with libelf (never mapped or loaded):
// imported OpenMP runtime symbols, and zmm register operands in its executable sections
// (capstone x86-64 disassembly, linear sweep), and zmm instructions hidden inside other
// instructions' bytes (decoded at every byte offset that is not an instruction start of the
// sweep): a candidate that takes over its own control flow can jump into a constant's bytes,
// so code the sweep never sees can still run.
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
};

// Hidden zmm instructions from this many on count as AVX-512 in an object with no zmm code in
// sight (technique_detection.hpp): one may decode by chance, a vector kernel needs several.
inline constexpr int kHiddenZmmRefused = 2;

ObjectTechniques detect_in_object(const std::filesystem::path &shared_object);

}  // namespace hpcreward::techniques
