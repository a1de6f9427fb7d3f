# Every external dependency is found here, once, so a missing one fails at configure
# time with the Debian package that provides it.
function(hpcreward_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "${what} not found: install it with `apt-get install ${package}` "
                        "(or run jobs/install-deps.sh)")
  endif()
endfunction()

find_package(MPI REQUIRED COMPONENTS C CXX)
find_package(OpenMP REQUIRED COMPONENTS C CXX)
find_package(Threads REQUIRED)

# OpenBLAS, the OpenMP build (Debian: libopenblas-openmp-dev).
set(BLA_VENDOR OpenBLAS)
find_package(BLAS)
hpcreward_require(BLAS_FOUND "OpenBLAS" libopenblas-openmp-dev)
find_path(CBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/openblas
  NO_DEFAULT_PATH)
find_path(CBLAS_INCLUDE_DIR cblas.h)
hpcreward_require(CBLAS_INCLUDE_DIR "cblas.h" libopenblas-openmp-dev)
add_library(hpcreward_openblas INTERFACE)
target_link_libraries(hpcreward_openblas INTERFACE ${BLAS_LIBRARIES})
target_include_directories(hpcreward_openblas INTERFACE ${CBLAS_INCLUDE_DIR})

find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(GTest REQUIRED)

# CUDA is optional: found and reported, not required (GPU ranks come later).
include(CheckLanguage)
check_language(CUDA)
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND)
  message(STATUS "CUDA Toolkit ${CUDAToolkit_VERSION} found (GPU ranks not built yet)")
else()
  message(STATUS "CUDA Toolkit not found: CPU-only build")
endif()

# The system Python carries h5py and pytest from Debian; pyenv shims on PATH may not.
find_program(HPCREWARD_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(HPCREWARD_PYTHON python3)

# Sandbox and static-check libraries (Debian: libclang-14-dev, libelf-dev, libseccomp-dev).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBSECCOMP IMPORTED_TARGET libseccomp)
hpcreward_require(LIBSECCOMP_FOUND "libseccomp" libseccomp-dev)
pkg_check_modules(LIBELF IMPORTED_TARGET libelf)
hpcreward_require(LIBELF_FOUND "libelf" libelf-dev)
# The coordinator's trainer endpoint (serve mode): cpp-httplib, Debian's compiled build.
pkg_check_modules(CPPHTTPLIB IMPORTED_TARGET cpp-httplib)
hpcreward_require(CPPHTTPLIB_FOUND "cpp-httplib" libcpp-httplib-dev)

# libclang's C API (not the C++ ClangConfig, which drags in every clang tool).
find_path(LIBCLANG_INCLUDE_DIR clang-c/Index.h PATHS /usr/lib/llvm-14/include NO_DEFAULT_PATH)
find_library(LIBCLANG_LIBRARY NAMES clang-14 clang PATHS /usr/lib/llvm-14/lib NO_DEFAULT_PATH)
hpcreward_require(LIBCLANG_INCLUDE_DIR "libclang headers" libclang-14-dev)
hpcreward_require(LIBCLANG_LIBRARY "libclang" libclang-14-dev)
add_library(hpcreward_libclang INTERFACE)
target_include_directories(hpcreward_libclang SYSTEM INTERFACE ${LIBCLANG_INCLUDE_DIR})
target_link_libraries(hpcreward_libclang INTERFACE ${LIBCLANG_LIBRARY})
