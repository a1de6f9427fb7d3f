#pragma once
// Compiling a CUDA candidate into a shared object the GPU runner can load: nvcc run as a
// limited child (compiler.hpp's Compiler boundary), writing cand.cu and building cand.so:
//
//   nvcc -shared -Xcompiler -fPIC -cudart shared -gencode=arch=compute_90a,code=sm_90a
//        -isystem iostream-shim [-isystem <CuTe headers>] <the stage's flags>
//        -Xcompiler -ffunction-sections
//        -Xlinker --gc-sections,--version-script=cand.exports -Xlinker -z,defs -o cand.so cand.cu
//
// `-cudart shared`: the harness and the candidate share one CUDA runtime, so one context
// (a static runtime in the object would make a second one). `-z defs`: an undefined
// reference fails here, with the linker's message; one to a function the CUDA audit
// refuses (cuBLAS, the driver API, ...) is `forbidden`, not a compile_error (link_refusal.hpp).
// The version script exports matmul (and a C++ matmul, so the audit can say what is wrong)
// and nothing else; with --gc-sections the linker then drops every function no export, load-
// time code or kept function refers to: among them the host stubs nvcc gives __device__
// functions, whose bodies call exit. The CuTe headers are on the include path only for a
// stage whose libraries name CuTe; iostream_shim.hpp's <iostream> comes before every other
// header. The source checks decide which headers may be included.
#include <cstdint>
#include <string>
#include <vector>

#include "bench_node/checks/compiler.hpp"

namespace hpcreward {

struct NvccOptions {
  std::string nvcc = "nvcc";  // a path, or a name looked up on PATH once per compile
  std::string arch = "sm_90a";  // the rank's GPU: sm_<digits>[a]
  double timeout_s = 120;
  std::uint64_t memory_bytes = 4ULL << 30;      // RLIMIT_AS of nvcc and each of its children
  // RLIMIT_FSIZE (its temporaries, the object): cudafe's generated C of one CUTLASS file as
  // published passed 256 MiB.
  std::uint64_t file_size_bytes = 1024ULL << 20;
  // The directory holding cute/ and cutlass/ of the pinned nvidia-cutlass release; empty: none.
  std::string cute_include = "";
};

// Whether `arch` is nvcc's name of a real GPU architecture: "sm_" digits and an optional "a".
bool valid_cuda_arch(const std::string &arch);

// "-gencode=arch=compute_90a,code=sm_90a" for "sm_90a". Throws std::invalid_argument for an
// arch that valid_cuda_arch refuses.
std::string gencode_for(const std::string &arch);

class NvccCompiler : public Compiler {
 public:
  static constexpr const char *kSourceName = "cand.cu";
  static constexpr const char *kObjectName = "cand.so";
  static constexpr const char *kExportsName = "cand.exports";
  static constexpr const char *kExportsScript = "{\n  global: matmul; _Z6matmul*;\n  local: *;\n};\n";

  // Throws std::invalid_argument when options.arch is not valid_cuda_arch.
  explicit NvccCompiler(NvccOptions options);
  CompileOutcome compile(const CompileRequest &request) override;
  std::vector<std::string> arguments(const CompileRequest &request) const;

 private:
  bool uses_cute(const CompileRequest &request) const;
  NvccOptions options_;
};

// What identifies a build besides its source and flags, for compile caches: the resolved
// nvcc, its full `--version` text, the arch and the fixed arguments. Runs nvcc --version as a
// limited child; when that fails the text says so (and such a cache still keys on the path).
std::string nvcc_identity(const NvccOptions &options);

}  // namespace hpcreward
