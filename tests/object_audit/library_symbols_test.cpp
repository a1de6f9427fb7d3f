#include "bench_node/object_audit/library_symbols.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(LibrarySymbols, NamesTheLibraryThatDefinesAName) {
  const LibrarySymbols libraries;
  EXPECT_EQ(libraries.library_defining("clock_gettime"), "libc.so.6");
  EXPECT_EQ(libraries.library_defining("malloc"), "libc.so.6");
  EXPECT_EQ(libraries.library_defining("dlsym"), "libc.so.6");
  EXPECT_EQ(libraries.library_defining("sqrt"), "libm.so.6");
  EXPECT_EQ(libraries.library_defining("omp_get_wtime"), "libgomp.so.1");
}

// The executor never loads OpenBLAS: a helper named like one of its kernels collides with
// nothing there. Asked of OpenBLAS itself, the class still names it.
TEST(LibrarySymbols, OpenBlasIsNotOneOfTheExecutorsLibraries) {
  const LibrarySymbols executor;
  const LibrarySymbols openblas({"libopenblas.so.0"});
  for (const char *name : {"dgemm_nn", "cblas_dgemm", "dgemm_", "openblas_set_num_threads"}) {
    EXPECT_EQ(executor.library_defining(name), std::nullopt) << name;
    const auto library = openblas.library_defining(name);
    ASSERT_TRUE(library.has_value()) << name;
    EXPECT_NE(library->find("openblas"), std::string::npos) << *library;
  }
}

TEST(LibrarySymbols, CandidateNamesAreNotLibrarySymbols) {
  const LibrarySymbols libraries;
  for (const char *name : {"matmul", "pack_a", "micro_kernel_8x8", "transpose_block", "dot_helper"})
    EXPECT_EQ(libraries.library_defining(name), std::nullopt) << name;
}

TEST(LibrarySymbols, MissingLibraryThrows) {
  EXPECT_THROW(LibrarySymbols({"libno-such-library-anywhere.so.7"}), std::runtime_error);
}

}  // namespace
}  // namespace hpcreward
