#pragma once
// Which system library, if any, defines a name: a candidate that exports a symbol of a
// library its executor loads (clock_gettime, malloc, omp_get_wtime) is refused, whatever it
// does with it. OpenBLAS is not one of them: only the measurer links it, and the candidate is
// never loaded there, so a helper named like a BLAS kernel (dgemm_nn) collides with nothing;
// calling BLAS is refused as an import (c_symbol_policy.hpp). Asked of the libraries themselves, loaded into this trusted process with dlopen
// and searched with dlsym (each library together with its own dependencies), so the answer
// is the same in every process that audits: the benchmark rank and the tests alike.
// Candidate objects are never loaded here.
#include <optional>
#include <string>
#include <vector>

namespace hpcreward {

class LibrarySymbols {
 public:
  // What the executor loads besides the candidate: libc, libm and libgomp.
  static std::vector<std::string> default_libraries();

  // Opens each library (RTLD_NOW | RTLD_LOCAL). Throws std::runtime_error when one can't
  // be opened: the rank can't audit without them.
  explicit LibrarySymbols(const std::vector<std::string> &sonames = default_libraries());
  ~LibrarySymbols();
  LibrarySymbols(const LibrarySymbols &) = delete;
  LibrarySymbols &operator=(const LibrarySymbols &) = delete;

  // The file name of the library that defines `name` ("libc.so.6"), or nullopt.
  std::optional<std::string> library_defining(const std::string &name) const;

 private:
  std::vector<void *> handles_;
  std::vector<std::string> sonames_;  // as opened, one per handle
};

}  // namespace hpcreward
