// The CUDA audit's allow-lists and the link-failure rule, on names and logs.
#include "bench_node/cuda/cuda_symbol_policy.hpp"

#include <gtest/gtest.h>

#include "bench_node/cuda/link_refusal.hpp"

namespace hpcreward {
namespace {

// The CUDA tables through the shared rules.
namespace policy {
std::optional<std::string> import_refusal(std::string_view name) { return hpcreward::import_refusal(name, cuda_import_table()); }
std::optional<std::string> named_refusal(std::string_view name) { return named_import_refusal(name, cuda_import_table()); }
bool allowed_library(std::string_view soname) { return hpcreward::allowed_library(soname, cuda_import_table()); }
std::optional<std::string> export_refusal(const std::string &name) { return hpcreward::export_refusal(name, cuda_export_table()); }
}  // namespace policy

void expect_refused(const std::string &name, const std::string &reason_part) {
  const auto why = policy::import_refusal(name);
  ASSERT_TRUE(why) << name << " should be refused";
  EXPECT_NE(why->find(reason_part), std::string::npos) << name << ": " << *why;
}

TEST(CudaSymbolPolicy, WhatNvccAndRealKernelsImportIsAllowed) {
  // `nm -D --undefined-only` of nvcc 13 builds: a naive kernel, WMMA, cp.async, streams,
  // events, occupancy, symbols, async allocation.
  for (const char *name :
       {"__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
        "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaPushCallConfiguration",
        "__cudaPopCallConfiguration", "__cudaLaunchKernel", "__cudaGetKernel", "__cxa_atexit",
        "__cxa_finalize", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort",
        "__gxx_personality_v0", "_Unwind_Resume", "_ITM_registerTMCloneTable",
        "_ITM_deregisterTMCloneTable", "__gmon_start__", "__stack_chk_fail",
        "cudaDeviceGetAttribute", "cudaDeviceSynchronize", "cudaEventCreate", "cudaEventDestroy",
        "cudaEventRecord", "cudaEventSynchronize", "cudaFree", "cudaFreeAsync",
        "cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaGetDevice", "cudaGetDeviceProperties",
        "cudaGetDeviceProperties_v2", "cudaGetErrorString", "cudaGetErrorName", "cudaGetLastError",
        "cudaGetSymbolAddress", "cudaLaunchKernel", "cudaLaunchKernelExC",
        "cudaLaunchCooperativeKernel", "cudaMalloc", "cudaMallocAsync", "cudaMemcpy",
        "cudaMemcpyAsync", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync", "cudaMemset",
        "cudaMemsetAsync", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        "cudaOccupancyMaxPotentialClusterSize", "cudaPeekAtLastError", "cudaStreamCreateWithFlags",
        "cudaStreamDestroy", "cudaStreamSynchronize", "cudaStreamWaitEvent", "cudaFuncSetCacheConfig",
        "cudaLaunchKernel_ptsz", "cudaMemcpyAsync_ptsz", "cudaMemcpy_ptds", "sqrt", "fmaf", "memcpy",
        "memset", "memmove", "_Znwm", "_ZdlPvm", "_Znam", "_ZdaPv",
        "_ZSt20__throw_length_errorPKc", "_ZSt17__throw_bad_allocv", "__cxa_throw_bad_array_new_length",
        "__cudaLaunchKernel_ptsz", "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion",
        "cudaEventElapsedTime", "__udivti3", "__umodti3"}) {
    const auto why = policy::import_refusal(name);
    EXPECT_FALSE(why) << name << ": " << *why;
  }
}

TEST(CudaSymbolPolicy, NamedDangersAreRefusedWithTheirReason) {
  expect_refused("cublasDgemm_v2", "cuBLAS");
  expect_refused("cublasCreate_v2", "cuBLAS");
  expect_refused("cublasLtMatmul", "cuBLAS");
  expect_refused("cudnnCreate", "cuDNN");
  expect_refused("cuLaunchKernel", "driver API");
  expect_refused("cuCtxCreate_v2", "driver API");
  expect_refused("cuModuleLoadData", "driver API");
  expect_refused("cuTensorMapEncodeTiled", "driver API");  // by name; by pointer it is CuTe's TMA
  expect_refused("cudaLibraryLoadData", "did not build");
  expect_refused("dlopen", "dynamic loader");
  expect_refused("dlsym", "dynamic loader");
  for (const char *name : {"system", "popen", "fork", "execve", "execvp", "posix_spawn", "posix_spawnp"})
    expect_refused(name, "process control");
  for (const char *name : {"open", "fopen", "openat"}) expect_refused(name, "files");
  for (const char *name : {"socket", "connect"}) expect_refused(name, "network");
  expect_refused("cudaDeviceReset", "destroys the CUDA context");
  expect_refused("cudaSetDevice", "device the harness chose");
  expect_refused("cudaDeviceSetLimit", "device-wide limit");
  expect_refused("cudaDeviceSetCacheConfig", "device-wide configuration");
  expect_refused("cudaDeviceSetSharedMemConfig", "device-wide configuration");
  expect_refused("cudaStreamSetAttribute", "L2 persistence");
  expect_refused("cudaCtxResetPersistingL2Cache", "L2 persistence");
  expect_refused("cudaGraphLaunch", "graphs");
  expect_refused("cudaGraphInstantiateWithFlags", "graphs");
  expect_refused("cudaStreamBeginCapture", "capture");
  expect_refused("cudaStreamBeginCapture_ptsz", "capture");
  expect_refused("cudaStreamEndCapture", "capture");
  expect_refused("cudaLaunchHostFunc", "host code on a driver thread");
  expect_refused("cudaStreamAddCallback", "host code on a driver thread");
  expect_refused("cudaMallocManaged", "managed memory");
  expect_refused("__cudaRegisterManagedVar", "managed memory");
  expect_refused("cudaMallocHost", "pinned host memory");
  expect_refused("cudaHostAlloc", "pinned host memory");
  expect_refused("cudaHostRegister", "pinned host memory");
  expect_refused("cudaIpcGetMemHandle", "other processes");
  expect_refused("cudaDeviceEnablePeerAccess", "another GPU");
  expect_refused("cudaProfilerStart", "profiler");
  expect_refused("clock_gettime", "clock");
  expect_refused("pthread_create", "threads");
  expect_refused("cudaMallocArray", "not on the CUDA allow-list");
  expect_refused("GOMP_parallel", "not on the CUDA allow-list");
  expect_refused("_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode", "not on the CUDA allow-list");
}

// What a kernel file's host-side error checks and set-up import (nm -D --undefined-only of an
// nvcc 13 build with fprintf(stderr), std::cerr, std::runtime_error, std::string, assert,
// std::call_once and std::mutex): output to the process's own streams, strings, exceptions and
// locks reach nothing outside it under the GPU executor's filter.
TEST(CudaSymbolPolicy, HostErrorChecksAndOutputPass) {
  for (const char *name :
       {"printf", "fprintf", "puts", "fwrite", "fflush", "stdout", "stderr", "__assert_fail", "abort", "exit",
        "_ZSt4cout", "_ZSt4cerr", "_ZNSo3putEc", "_ZNSo5flushEv", "_ZNKSt5ctypeIcE13_M_widen_initEv",
        "_ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l",
        "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
        "_ZNSt9basic_iosIcSt11char_traitsIcEE5clearESt12_Ios_Iostate",
        "_ZNSt13runtime_errorC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "_ZNSt13runtime_errorD1Ev",
        "_ZTISt13runtime_error", "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE6appendEPKc",
        "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm", "_ZSt11__once_call",
        "_ZSt15__once_callable", "__once_proxy", "pthread_once", "pthread_mutex_lock", "pthread_mutex_unlock",
        "strlen", "_ZSt16__throw_bad_castv", "_ZSt20__throw_system_errori"})
    EXPECT_EQ(policy::import_refusal(name), std::nullopt) << name;
}

TEST(CudaSymbolPolicy, NamedRefusalsLeaveUnlistedNamesAlone) {
  EXPECT_TRUE(policy::named_refusal("cublasDgemm_v2"));
  EXPECT_TRUE(policy::named_refusal("cuInit"));
  EXPECT_FALSE(policy::named_refusal("helper"));
  EXPECT_FALSE(policy::named_refusal("cudaMalloc"));
  EXPECT_FALSE(policy::named_refusal("cudaMallocArray"));
}

TEST(CudaSymbolPolicy, Libraries) {
  for (const char *soname : {"libcudart.so.13", "libcudart.so.12", "libstdc++.so.6", "libm.so.6",
                             "libgcc_s.so.1", "libc.so.6", "ld-linux-x86-64.so.2"})
    EXPECT_TRUE(policy::allowed_library(soname)) << soname;
  for (const char *soname : {"libcublas.so.13", "libcublasLt.so.13", "libcuda.so.1", "libcudart_static.a",
                             "libdl.so.2", "libgomp.so.1", "libcudnn.so.9"})
    EXPECT_FALSE(policy::allowed_library(soname)) << soname;
}

TEST(CudaSymbolPolicy, Exports) {
  EXPECT_FALSE(policy::export_refusal("_Z6helperPd"));
  EXPECT_FALSE(policy::export_refusal("my_table"));
  EXPECT_TRUE(policy::export_refusal("main"));
  EXPECT_TRUE(policy::export_refusal("_init"));
  EXPECT_TRUE(policy::export_refusal("__foo"));
  EXPECT_TRUE(policy::export_refusal("_Xfoo"));
  EXPECT_TRUE(policy::export_refusal("cudaMalloc"));
  EXPECT_TRUE(policy::export_refusal("cuInit"));
}

TEST(LinkRefusal, UndefinedReferencesAreReadFromTheLinkersLog) {
  // What nvcc 13 prints for hand-written cuBLAS prototypes (C and C++ linkage).
  const std::string log =
      "/usr/bin/ld: /tmp/tmpxft_00002aa9_00000000-11_cand.o: in function `matmul':\n"
      "tmpxft_00002aa9_00000000-6_cand.cudafe1.cpp:(.text+0x34): undefined reference to `cublasCreate_v2'\n"
      "/usr/bin/ld: tmpxft_00002aa9_00000000-6_cand.cudafe1.cpp:(.text+0x74): undefined reference to "
      "`blas::cublasDgemm_v2(cublasContext*, int)'\n"
      "/usr/bin/ld: x.cpp:(.text+0x80): undefined reference to `cublasCreate_v2'\n"
      "collect2: error: ld returned 1 exit status\n";
  EXPECT_EQ(undefined_references(log), (std::vector<std::string>{"cublasCreate_v2", "cublasDgemm_v2"}));
  const auto verdict = link_refusal(log);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, Status::forbidden);
  EXPECT_NE(verdict->reason.find("cublasCreate_v2 (cuBLAS"), std::string::npos) << verdict->reason;
}

TEST(LinkRefusal, AMissingHelperStaysACompileError) {
  EXPECT_FALSE(link_refusal("x.cpp:(.text+0x9): undefined reference to `helper(double*)'\n"));
  EXPECT_FALSE(link_refusal("cand.cu(3): error: identifier \"x\" is undefined\n"));
  EXPECT_FALSE(link_refusal(""));
}

}  // namespace
}  // namespace hpcreward
