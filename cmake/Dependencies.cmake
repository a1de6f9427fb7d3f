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
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)
find_package(GTest REQUIRED)

# CUDA (GPU ranks): built when the toolkit is found (no GPU is needed to build or to
# run the tests that need none); HPCREWARD_CUDA=OFF forces a CPU-only build.
# The default also needs cuobjdump and nvdisasm (jobs/install-deps.sh puts NVIDIA's wheels of
# both in /usr/local/lib/hpcreward/cuda-tools where the toolkit lacks them); without them the
# build is CPU-only, with a warning.
# nvcc off PATH is found where the toolkit installs itself ($CUDA_HOME, /usr/local/cuda).
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(HPCREWARD_NVCC_FOUND nvcc HINTS $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
  if(HPCREWARD_NVCC_FOUND)
    set(CMAKE_CUDA_COMPILER "${HPCREWARD_NVCC_FOUND}" CACHE FILEPATH "CUDA compiler")
  endif()
endif()
include(CheckLanguage)
check_language(CUDA)
set(HPCREWARD_CUDA_DEFAULT OFF)
if(CMAKE_CUDA_COMPILER)
  # Debian's CMake 3.25 FindCUDAToolkit sets a property on CUDA::nvToolsExt, which CUDA 13 no
  # longer has, whenever the project requires CMake >= 3.25: a configure error on a fresh
  # Debian 12. The module is asked as by a 3.24 project.
  set(HPCREWARD_MINIMUM_VERSION ${CMAKE_MINIMUM_REQUIRED_VERSION})
  set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
  find_package(CUDAToolkit QUIET)
  set(CMAKE_MINIMUM_REQUIRED_VERSION ${HPCREWARD_MINIMUM_VERSION})
endif()
if(CUDAToolkit_FOUND AND CMAKE_CUDA_COMPILER)
  get_filename_component(HPCREWARD_CUDA_BIN "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  find_program(HPCREWARD_CUOBJDUMP cuobjdump
    HINTS ${HPCREWARD_CUDA_BIN} ${CUDAToolkit_BIN_DIR} /usr/local/lib/hpcreward/cuda-tools/bin)
  find_program(HPCREWARD_NVDISASM nvdisasm
    HINTS ${HPCREWARD_CUDA_BIN} ${CUDAToolkit_BIN_DIR} /usr/local/lib/hpcreward/cuda-tools/bin)
  if(HPCREWARD_CUOBJDUMP AND HPCREWARD_NVDISASM)
    set(HPCREWARD_CUDA_DEFAULT ON)
  else()
    message(WARNING "CUDA Toolkit found without cuobjdump/nvdisasm: GPU ranks are not built "
                    "(run jobs/install-deps.sh, which installs NVIDIA's wheels of both)")
  endif()
endif()
option(HPCREWARD_CUDA "Build the GPU benchmark rank (needs the CUDA Toolkit)" ${HPCREWARD_CUDA_DEFAULT})
if(HPCREWARD_CUDA)
  if(NOT CUDAToolkit_FOUND OR NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "HPCREWARD_CUDA=ON but no CUDA Toolkit was found: install it (nvcc in "
                        "/usr/local/cuda/bin or on PATH) or configure with -DHPCREWARD_CUDA=OFF")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # The runner's own kernels (checks, L2 flush, canary): plain PTX + Hopper SASS; candidates
    # are compiled separately for the rank's GPU.
    set(CMAKE_CUDA_ARCHITECTURES 80-virtual 90)
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc 12+'s C++20 flag; the runner's .cu files include the
  # project's C++20 headers.
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
  # nvcc and cuobjdump as the ranks will run them (candidates are compiled at run time).
  if(NOT HPCREWARD_CUOBJDUMP OR NOT HPCREWARD_NVDISASM)
    message(FATAL_ERROR "cuobjdump and nvdisasm (CUDA Toolkit) not found next to ${CMAKE_CUDA_COMPILER}: "
                        "run jobs/install-deps.sh (it installs NVIDIA's PyPI wheels of both), or "
                        "configure with -DHPCREWARD_CUDA=OFF for a CPU-only build")
  endif()
  set(HPCREWARD_NVCC "${CMAKE_CUDA_COMPILER}")
  message(STATUS "CUDA Toolkit ${CUDAToolkit_VERSION}: GPU ranks built (nvcc ${HPCREWARD_NVCC})")
  # CuTe for stages that allow it ("libraries": ["cute"]): the headers of the pinned
  # nvidia-cutlass wheel, where jobs/install-deps.sh unpacks them. Without them GPU ranks are
  # built all the same and say they have none (a run with a CuTe stage is then refused).
  find_path(HPCREWARD_CUTE_INCLUDE_DIR cute/tensor.hpp
    HINTS /usr/local/lib/hpcreward/cutlass-4.2.0/include NO_DEFAULT_PATH)
  if(HPCREWARD_CUTE_INCLUDE_DIR)
    message(STATUS "CuTe headers: ${HPCREWARD_CUTE_INCLUDE_DIR}")
  else()
    set(HPCREWARD_CUTE_INCLUDE_DIR "")
    message(STATUS "CuTe headers not found (jobs/install-deps.sh installs them): GPU ranks can't score "
                   "stages that allow CuTe")
  endif()
else()
  message(STATUS "CUDA Toolkit not found or HPCREWARD_CUDA=OFF: CPU-only build")
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
# HTTPS (--tls-cert) needs a build with OpenSSL: Debian's is, and its cpp-httplib.pc passes
# -DCPPHTTPLIB_OPENSSL_SUPPORT to everything that includes httplib.h (the macro changes class
# layouts, so it must match the library's build; never define it by hand).
if(NOT CPPHTTPLIB_CFLAGS MATCHES "CPPHTTPLIB_OPENSSL_SUPPORT")
  message(WARNING "cpp-httplib ${CPPHTTPLIB_VERSION} was built without OpenSSL support: the coordinator "
                  "refuses --tls-cert (HTTPS). Debian 12's libcpp-httplib-dev has it.")
endif()

# libclang's C API (not the C++ ClangConfig, which drags in every clang tool).
find_path(LIBCLANG_INCLUDE_DIR clang-c/Index.h PATHS /usr/lib/llvm-14/include NO_DEFAULT_PATH)
find_library(LIBCLANG_LIBRARY NAMES clang-14 clang PATHS /usr/lib/llvm-14/lib NO_DEFAULT_PATH)
hpcreward_require(LIBCLANG_INCLUDE_DIR "libclang headers" libclang-14-dev)
hpcreward_require(LIBCLANG_LIBRARY "libclang" libclang-14-dev)
add_library(hpcreward_libclang INTERFACE)
target_include_directories(hpcreward_libclang SYSTEM INTERFACE ${LIBCLANG_INCLUDE_DIR})
target_link_libraries(hpcreward_libclang INTERFACE ${LIBCLANG_LIBRARY})
