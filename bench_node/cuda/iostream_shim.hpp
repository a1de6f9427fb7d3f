#pragma once
// The <iostream> every CUDA compile finds first (nvcc_compiler.hpp: -isystem iostream-shim, a
// directory inside the compile's own). g++ 12's <iostream> gives every object that includes
// it a constructor (a static std::ios_base::Init), which runs when the object is loaded,
// before the executor's filter, and the object audit refuses every constructor beyond the
// toolchain's own. Kernel files include <iostream> for their error checks, and CuTe's
// config.hpp for its host-side printing: this one declares the standard streams, which
// libstdc++ initializes as it always does, and adds no constructor. (g++ 13 and later do the
// same in the library itself.)
namespace hpcreward {

inline constexpr const char *kIostreamShimDirectory = "iostream-shim";
inline constexpr const char *kIostreamShim =
    "#pragma once\n"
    "// hpcreward: the standard streams without g++ 12's per-object constructor (bench_node/cuda/iostream_shim.hpp)\n"
    "#include <istream>\n#include <ostream>\n"
    "namespace std {\nextern istream cin;\nextern ostream cout;\nextern ostream cerr;\nextern ostream clog;\n}\n";

}  // namespace hpcreward
