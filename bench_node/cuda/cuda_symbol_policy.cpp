#include "bench_node/cuda/cuda_symbol_policy.hpp"

#include "bench_node/object_audit/c_symbol_policy.hpp"

namespace hpcreward {

namespace {

constexpr std::string_view kNotListed =
    "not on the CUDA allow-list: kernel launches, streams and events, device memory and "
    "copies, function attributes, occupancy, device and error queries, math and memory "
    "functions";

// What nvcc's generated host code calls (CUDA 13: `nm -D --undefined-only` of real builds).
constexpr std::string_view kNvccGlue[] = {
    "__cudaRegisterFatBinary",  "__cudaRegisterFatBinaryEnd",  "__cudaUnregisterFatBinary",
    "__cudaRegisterFunction",   "__cudaRegisterVar",           "__cudaPushCallConfiguration",
    "__cudaPopCallConfiguration", "__cudaLaunchKernel",        "__cudaGetKernel",
    "__cudaInitModule",         "__cudaRegisterLinkedBinary",
};

// The CUDA runtime calls a kernel author needs, with no effect past the call.
constexpr std::string_view kRuntimeCalls[] = {
    // launches and errors
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
    "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
    // streams and events
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
    "cudaStreamDestroy", "cudaStreamSynchronize", "cudaStreamWaitEvent", "cudaStreamQuery",
    "cudaStreamGetPriority", "cudaStreamGetFlags", "cudaStreamGetAttribute",
    "cudaStreamGetDevice", "cudaDeviceGetStreamPriorityRange", "cudaEventCreate",
    "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventRecordWithFlags", "cudaEventQuery",
    "cudaEventSynchronize", "cudaEventDestroy", "cudaDeviceSynchronize",
    // device memory and copies
    "cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaMallocPitch",
    "cudaMemset", "cudaMemsetAsync", "cudaMemset2D", "cudaMemset2DAsync", "cudaMemcpy",
    "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpyToSymbol",
    "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync",
    "cudaGetSymbolAddress", "cudaGetSymbolSize", "cudaMemGetInfo", "cudaPointerGetAttributes",
    // kernels' attributes, occupancy (also a prefix below), textures over device memory
    "cudaFuncSetAttribute", "cudaFuncGetAttributes", "cudaFuncSetCacheConfig",
    "cudaCreateTextureObject", "cudaDestroyTextureObject", "cudaCreateChannelDesc",
    // device queries
    "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties",
    "cudaGetDeviceProperties_v2", "cudaDeviceGetAttribute", "cudaDeviceGetLimit",
    "cudaDeviceGetCacheConfig", "cudaRuntimeGetVersion", "cudaDriverGetVersion",
    // driver functions by pointer: CuTe's and CUTLASS's TMA encode their tensor maps with
    // cuTensorMapEncodeTiled, fetched this way. Any code in the process can reach the driver
    // without it (docs/reward-integrity.md, "The driver's entry points"); what it may do is the
    // filter's and the window's to bound.
    "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion",
    // the time between two of its own events: kernels as published choose their launch
    // configuration by timing the candidates at the first call. It reads no clock of the
    // harness's, and device code reads %globaltimer anyway (docs/reward-integrity.md).
    "cudaEventElapsedTime", "cudaEventElapsedTime_v2",
};

// Occupancy queries, whatever their spelling.
constexpr std::string_view kRuntimeFamilies[] = {"cudaOccupancy*"};

constexpr std::string_view kLibraries[] = {"libcudart.so.*", "libstdc++.so.6", "libm.so.6",
                                           "libgcc_s.so.1",  "libc.so.6",      "ld-linux*"};

// The C++ runtime glue nvcc's host code and g++ emit.
constexpr std::string_view kCxxGlue[] = {
    "__cxa_atexit", "__cxa_finalize", "__cxa_guard_acquire", "__cxa_guard_release",
    "__cxa_guard_abort", "__gxx_personality_v0", "_Unwind_Resume", "__stack_chk_fail",
    "__tls_get_addr", "__dso_handle", "_ITM_registerTMCloneTable",
    "_ITM_deregisterTMCloneTable", "__gmon_start__", "__cxa_pure_virtual",
    "__cxa_deleted_virtual", "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw",
    "__cxa_begin_catch", "__cxa_end_catch", "__cxa_rethrow", "_ZSt9terminatev",
    "__cxa_throw_bad_array_new_length",  // new T[n] with a runtime n
    // operator new and delete: plain, array, sized, aligned, nothrow
    "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t", "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t", "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t", "_ZSt7nothrow",
    // type information of classes with virtual functions
    "_ZTVN10__cxxabiv117__class_type_infoE", "_ZTVN10__cxxabiv120__si_class_type_infoE",
    "_ZTVN10__cxxabiv121__vmi_class_type_infoE",
    // libgcc's 128-bit integer arithmetic (CUTLASS's FastDivmod and tile schedulers divide
    // 128-bit values on the host)
    "__udivti3", "__umodti3", "__divti3", "__modti3", "__udivmodti4", "__divmodti4",
};

// Host-side C++ a kernel file's error checks and set-up use, reaching nothing outside the
// process under the GPU executor's filter: output to std::cout and std::cerr (<iostream>, whose
// per-object constructor the iostream shim removes, iostream_shim.hpp), std::string, the
// standard exception classes, and std::call_once and std::mutex (a lock within the process).
constexpr std::string_view kHostCxx[] = {
    "_ZSt4cout", "_ZSt4cerr", "_ZSt4clog", "_ZNSo*", "_ZSt16__ostream_insert*", "_ZStlsI*", "_ZSt4endl*",
    "_ZNKSt5ctypeIcE13_M_widen_initEv", "_ZNSt9basic_iosIcSt11char_traitsIcEE5clearESt12_Ios_Iostate",
    "_ZNSt7__cxx1112basic_string*", "_ZNKSt7__cxx1112basic_string*", "strlen",
    "_ZSt11__once_call", "_ZSt15__once_callable", "__once_proxy", "pthread_once", "pthread_mutex_lock",
    "pthread_mutex_unlock", "pthread_mutex_trylock"};

// std::runtime_error and its kin: constructors, destructors, what(), type information.
bool standard_exception(std::string_view name) {
  for (std::string_view prefix : {"_ZNSt", "_ZNKSt", "_ZTISt", "_ZTVSt", "_ZTSSt"}) {
    if (!name.starts_with(prefix)) continue;
    std::string_view rest = name.substr(prefix.size());
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    rest = rest.substr(digits);
    for (std::string_view what : {"runtime_error", "logic_error", "invalid_argument", "out_of_range",
                                  "length_error", "domain_error", "overflow_error", "range_error",
                                  "underflow_error", "exception", "bad_alloc"})
      if (digits > 0 && rest.starts_with(what)) return true;
  }
  return false;
}

// Refused for what they do, each with its reason. Read before the allow-lists.
constexpr RefusedName kRefusals[] = {
    // libraries
    {"cublas*", "cuBLAS: the multiplication must be the candidate's own kernels"},
    {"cusparse*", "a CUDA math library: the multiplication must be the candidate's own kernels"},
    {"cusolver*", "a CUDA math library: the multiplication must be the candidate's own kernels"},
    {"cudnn*", "cuDNN: the multiplication must be the candidate's own kernels"},
    {"cutensor*", "cuTENSOR: the multiplication must be the candidate's own kernels"},
    {"cufft*", "a CUDA math library: the multiplication must be the candidate's own kernels"},
    {"curand*", "cuRAND: a library the multiplication does not need"},
    {"nvrtc*", "runtime compilation: device code must come from the stage's compiler"},
    {"nvJitLink*", "runtime linking: device code must come from the stage's compiler"},
    {"cudaLibrary*", "loads device code the stage's compiler did not build"},
    // the harness's context and device
    {"cudaDeviceReset", "destroys the CUDA context the harness runs in"},
    {"cudaThreadExit", "destroys the CUDA context the harness runs in"},
    {"cudaSetDevice", "switches away from the device the harness chose"},
    {"cudaSetDeviceFlags", "changes how the harness's device is set up"},
    {"cudaInitDevice", "changes how the harness's device is set up"},
    {"cudaSetValidDevices", "changes which devices the harness may use"},
    {"cudaDeviceSetLimit", "changes a device-wide limit (stack, heap, L2 persisting size) that outlives the call"},
    {"cudaThreadSetLimit", "changes a device-wide limit that outlives the call"},
    {"cudaDeviceSetCacheConfig", "changes device-wide configuration that outlives the call"},
    {"cudaThreadSetCacheConfig", "changes device-wide configuration that outlives the call"},
    {"cudaDeviceSetSharedMemConfig", "changes device-wide configuration that outlives the call"},
    {"cudaDeviceSetMemPool", "changes device-wide configuration that outlives the call"},
    {"cudaMemPool*", "memory pool settings outlive the call"},
    {"cudaDeviceSetGraphMemAttribute", "changes device-wide configuration that outlives the call"},
    // L2 persistence
    {"cudaStreamSetAttribute", "stream attributes (L2 persistence access-policy windows) outlive the call"},
    {"cudaCtxResetPersistingL2Cache", "L2 persistence reaches past the call"},
    {"cudaDeviceSetPersistingL2Cache*", "L2 persistence reaches past the call"},
    // graphs and capture
    {"cudaGraph*", "CUDA graphs: work that reaches past the call"},
    {"cudaStreamBeginCapture*", "stream capture (CUDA graphs): work that reaches past the call"},
    {"cudaStreamEndCapture", "stream capture (CUDA graphs): work that reaches past the call"},
    {"cudaStreamIsCapturing", "stream capture (CUDA graphs): work that reaches past the call"},
    {"cudaStreamGetCaptureInfo*", "stream capture (CUDA graphs): work that reaches past the call"},
    {"cudaStreamUpdateCaptureDependencies*", "stream capture (CUDA graphs): work that reaches past the call"},
    {"cudaThreadExchangeStreamCaptureMode", "stream capture (CUDA graphs): work that reaches past the call"},
    {"cudaUserObject*", "CUDA graphs: work that reaches past the call"},
    {"cudaDeviceGraphMemTrim", "CUDA graphs: work that reaches past the call"},
    // host code on driver threads
    {"cudaLaunchHostFunc", "runs host code on a driver thread"},
    {"cudaStreamAddCallback", "runs host code on a driver thread"},
    // managed and pinned host memory
    {"cudaMallocManaged", "managed memory (page faults and migrations can hang a shared GPU)"},
    {"__cudaRegisterManagedVar", "a __managed__ variable: managed memory (page faults and migrations can hang a shared GPU)"},
    {"cudaMemPrefetchAsync*", "managed memory (page faults and migrations can hang a shared GPU)"},
    {"cudaMemAdvise*", "managed memory (page faults and migrations can hang a shared GPU)"},
    {"cudaMemRangeGetAttribute*", "managed memory (page faults and migrations can hang a shared GPU)"},
    {"cudaStreamAttachMemAsync", "managed memory (page faults and migrations can hang a shared GPU)"},
    {"cudaMallocHost", "pinned host memory: page-locks memory outside the harness's limits"},
    {"cudaHostAlloc", "pinned host memory: page-locks memory outside the harness's limits"},
    {"cudaHostRegister", "pinned host memory: page-locks memory outside the harness's limits"},
    {"cudaHostUnregister", "pinned host memory: page-locks memory outside the harness's limits"},
    {"cudaHostGetDevicePointer", "mapped host memory"},
    {"cudaFreeHost", "pinned host memory: page-locks memory outside the harness's limits"},
    // other processes and devices
    {"cudaIpc*", "shares GPU memory or events with other processes"},
    {"cudaDeviceEnablePeerAccess", "reaches another GPU (peer access)"},
    {"cudaDeviceDisablePeerAccess", "reaches another GPU (peer access)"},
    {"cudaMemcpyPeer*", "reaches another GPU (peer access)"},
    {"cudaLaunchCooperativeKernelMultiDevice", "reaches other GPUs"},
    {"cudaImportExternal*", "external memory or semaphores of other APIs"},
    {"cudaSignalExternal*", "external memory or semaphores of other APIs"},
    {"cudaWaitExternal*", "external memory or semaphores of other APIs"},
    {"cudaGraphics*", "graphics interoperability"},
    {"cudaProfiler*", "controls the profiler"},
    // the C library's ways out
    {"dlopen", "the dynamic loader: it reaches any library"},
    {"dlmopen", "the dynamic loader: it reaches any library"},
    {"dlsym", "the dynamic loader: it reaches any library"},
    {"dlvsym", "the dynamic loader: it reaches any library"},
    {"system", "process control: runs a command"},
    {"popen", "process control: runs a command"},
    {"fork", "process control"},
    {"vfork", "process control"},
    {"clone*", "process control"},
    {"exec*", "process control: replaces the process"},
    {"fexecve", "process control: replaces the process"},
    {"posix_spawn*", "process control"},
    {"kill", "process control: signals"},
    {"raise", "process control: signals"},
    {"signal", "process control: signals"},
    {"sigaction", "process control: signals"},
    {"_exit", "ends the process"},
    {"quick_exit", "ends the process"},
    {"syscall", "raw system calls"},
    {"ptrace", "process control"},
    {"prctl", "process control"},
    {"open", "opens files"},
    {"open64", "opens files"},
    {"openat*", "opens files"},
    {"creat*", "opens files"},
    {"fopen*", "opens files"},
    {"freopen*", "opens files"},
    {"unlink*", "changes files"},
    {"remove", "changes files"},
    {"rename*", "changes files"},
    {"socket", "the network"},
    {"connect", "the network"},
    {"bind", "the network"},
    {"listen", "the network"},
    {"accept*", "the network"},
    {"getaddrinfo", "the network"},
    {"gethostbyname*", "the network"},
    {"write", "writes to a file descriptor"},
    {"pthread_create*", "threads"},
    {"thrd_*", "threads"},
    {"clock_gettime", "a clock: the harness owns the clock"},
    {"gettimeofday", "a clock: the harness owns the clock"},
    {"time", "a clock: the harness owns the clock"},
    {"clock", "a clock: the harness owns the clock"},
    {"getenv", "reads the environment"},
    {"secure_getenv", "reads the environment"},
    {"mmap*", "maps memory (it could make code)"},
    {"mprotect", "changes memory protection (it could make code)"},
};

// cuInit, cuLaunchKernel, cuCtxCreate, cuModuleLoadData, ...
bool driver_api(std::string_view name) {
  return name.size() > 2 && name.starts_with("cu") && name[2] >= 'A' && name[2] <= 'Z';
}

std::optional<std::string_view> refused_family(std::string_view name) {
  if (driver_api(name)) return "the CUDA driver API: candidates use the runtime API, in the harness's context";
  return std::nullopt;
}

// std::__throw_length_error(char const*) and friends: _ZSt<length>__throw_<what>...
bool throw_helper(std::string_view name) {
  if (!name.starts_with("_ZSt")) return false;
  std::size_t at = 4;
  while (at < name.size() && name[at] >= '0' && name[at] <= '9') ++at;
  return at > 4 && name.substr(at).starts_with("__throw_");
}

// What no list names: libm with its vector variants (shared with C), std::__throw_*, the
// standard exception classes.
bool allowed_family(std::string_view name) {
  return math_import(name) || throw_helper(name) || standard_exception(name);
}

}  // namespace

const ImportTable &cuda_import_table() {
  static const ImportTable table{
      .symbols = {.allowed = joined<std::string_view>({kNvccGlue, kRuntimeCalls, kCxxGlue, memory_imports(),
                                                       own_output_imports(), kHostCxx, kRuntimeFamilies}),
                  .refused = {std::begin(kRefusals), std::end(kRefusals)}},
      .allowed_family = &allowed_family,
      .refused_family = &refused_family,
      .unlisted = kNotListed,
      .per_thread_stream_names = true,
      .libraries = {.allowed = {std::begin(kLibraries), std::end(kLibraries)}}};
  return table;
}

const ExportTable &cuda_export_table() {
  static const ExportTable table{.mangled_names = true, .taken = [](const std::string &name) -> std::optional<std::string> {
                                   if (name.starts_with("cuda") || driver_api(name) || name.starts_with("cublas"))
                                     return "a name of the CUDA runtime, driver or libraries; give helpers other "
                                            "names or make them static";
                                   return std::nullopt;
                                 }};
  return table;
}

}  // namespace hpcreward
