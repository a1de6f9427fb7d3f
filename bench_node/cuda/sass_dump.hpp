#pragma once
// Runs `cuobjdump -sass -res-usage cand.so` as a limited child (child_process.hpp: its own
// process group, time, memory and file-size limits, a wall-clock deadline) and hands back
// its output for techniques/sass_techniques.hpp to parse: the tool runs here, on the rank;
// the parsing is pure text, in techniques/. cuobjdump disassembles through nvdisasm, which it
// finds through NVDISASM_PATH (set to nvdisasm's directory here) or PATH; without it cuobjdump
// prints headers and no code, and says nothing: the parser refuses such a dump (a kernel
// listed without code), and the technique step checks at construction that both tools exist.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace hpcreward {

struct SassDumpOptions {
  std::string cuobjdump = "cuobjdump";  // a path, or a name looked up on PATH
  std::string nvdisasm = "nvdisasm";
  double timeout_s = 60;
  std::uint64_t memory_bytes = 4ULL << 30;        // RLIMIT_AS of cuobjdump and nvdisasm
  std::size_t output_limit_bytes = 128ULL << 20;  // more is a failure, never a partial dump
};

struct SassDump {
  bool ok = false;
  std::string error;  // why not: "cuobjdump timed out after 60 s", "... exit 255: ..."
  std::string text;   // the dump, when ok
  double seconds = 0;
};

// The directory of the object is cuobjdump's working and temporary directory.
SassDump dump_sass(const SassDumpOptions &options, const std::filesystem::path &object);

}  // namespace hpcreward
