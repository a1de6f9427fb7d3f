#pragma once
// What a compiled candidate object shows, read with libelf (never mapped or loaded):
// imported OpenMP runtime symbols, and zmm register operands in its executable sections
// (capstone x86-64 disassembly, linear sweep).
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
};

ObjectTechniques detect_in_object(const std::filesystem::path &shared_object);

}  // namespace hpcreward::techniques
