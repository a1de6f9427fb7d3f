#include "bench_node/object_audit/symbol_policy.hpp"

#include <algorithm>
#include <iterator>
#include <set>

namespace hpcreward::symbol_policy {

namespace {

constexpr std::string_view kOnlyAllowed =
    "only libm, memory and OpenMP runtime functions are allowed";

// C99/C11 <math.h> (7.12) plus the GNU sincos and exp10; each also with the f (float)
// and l (long double) suffix.
constexpr std::string_view kMathFunctions[] = {
    "acos",   "asin",     "atan",      "atan2",     "cos",        "sin",      "tan",
    "acosh",  "asinh",    "atanh",     "cosh",      "sinh",       "tanh",     "exp",
    "exp2",   "expm1",    "frexp",     "ilogb",     "ldexp",      "log",      "log10",
    "log1p",  "log2",     "logb",      "modf",      "scalbn",     "scalbln",  "cbrt",
    "fabs",   "hypot",    "pow",       "sqrt",      "erf",        "erfc",     "lgamma",
    "tgamma", "ceil",     "floor",     "nearbyint", "rint",       "lrint",    "llrint",
    "round",  "lround",   "llround",   "trunc",     "fmod",       "remainder", "remquo",
    "copysign", "nan",    "nextafter", "nexttoward", "fdim",      "fmax",     "fmin",
    "fma",    "sincos",   "exp10",
};

// What a candidate may use to get, fill and copy memory. The _chk variants are the same
// functions with a bound, called when the candidate defines _FORTIFY_SOURCE.
constexpr std::string_view kMemoryFunctions[] = {
    "memcpy", "memmove", "memset", "memcmp",        "malloc",        "calloc",       "realloc",
    "free",   "aligned_alloc",     "posix_memalign", "__memcpy_chk", "__memmove_chk",
    "__memset_chk",
};

// <stdlib.h>'s integer absolute values (gcc folds them inline unless -fno-builtin).
constexpr std::string_view kIntegerFunctions[] = {"abs", "labs", "llabs"};

// Weak references of crtbeginS.o (in every gcc -shared object): its load and unload code
// calls each one that some object defines.
constexpr std::string_view kStartupHooks[] = {
    "__cxa_finalize", "_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable",
    "__gmon_start__",
};

// The stack protector's failure path and the TLS accessor that thread-local variables need
// in -fPIC code.
constexpr std::string_view kCompilerReferences[] = {"__stack_chk_fail", "__tls_get_addr"};

// libgomp exports that are not computation: refused with their own reason, matched as
// prefixes so the Fortran spellings (omp_get_wtime_) are caught too.
struct Refusal {
  std::string_view prefix;
  std::string_view why;
};
constexpr Refusal kOpenMpRefusals[] = {
    {"omp_get_wtime", "a clock: the harness owns the clock"},
    {"omp_get_wtick", "a clock: the harness owns the clock"},
    {"omp_display_", "it writes to the output"},
    {"GOMP_error", "`#pragma omp error` writes to the output or ends the process"},
    {"GOMP_warning", "`#pragma omp error` writes to the output"},
    {"GOMP_target", "device offloading: candidates run on the host"},
    {"GOMP_offload_", "device offloading: candidates run on the host"},
    {"omp_target_", "device offloading: candidates run on the host"},
    {"GOMP_PLUGIN_", "libgomp's plugin interface"},
};

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

template <std::size_t N>
bool contains(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

bool math_function(std::string_view name) {
  if (contains(kMathFunctions, name)) return true;
  if (name.size() < 2 || (name.back() != 'f' && name.back() != 'l')) return false;
  const std::string_view base = name.substr(0, name.size() - 1);
  return contains(kMathFunctions, base);
}

// libmvec's vector variants: _ZGV<isa><mask><lanes><parameters>_<math function>.
bool vector_math_function(std::string_view name) {
  if (!starts_with(name, "_ZGV")) return false;
  const std::size_t underscore = name.find('_', 4);
  return underscore != std::string_view::npos && math_function(name.substr(underscore + 1));
}

}  // namespace

std::optional<std::string> import_refusal(std::string_view name) {
  if (math_function(name) || vector_math_function(name) || contains(kMemoryFunctions, name) ||
      contains(kIntegerFunctions, name) || contains(kStartupHooks, name) ||
      contains(kCompilerReferences, name))
    return std::nullopt;
  if (starts_with(name, "GOMP_") || starts_with(name, "omp_")) {
    for (const Refusal &refusal : kOpenMpRefusals)
      if (starts_with(name, refusal.prefix)) return std::string(refusal.why);
    return std::nullopt;
  }
  return std::string(kOnlyAllowed);
}

bool math_import(std::string_view name) {
  return math_function(name) || vector_math_function(name);
}

bool memory_import(std::string_view name) { return contains(kMemoryFunctions, name); }

bool allowed_library(std::string_view soname) {
  static const std::set<std::string_view> libraries = {
      "libc.so.6", "libm.so.6", "libmvec.so.1", "libgomp.so.1", "libgcc_s.so.1"};
  return libraries.count(soname) != 0 || starts_with(soname, "ld-linux");
}

bool startup_hook(std::string_view name) { return contains(kStartupHooks, name); }

bool reserved_identifier(std::string_view name) {
  return name.size() >= 2 && name[0] == '_' &&
         (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

bool harness_name(std::string_view name) {
  return name == "main" || name == "_start" || name == "_init" || name == "_fini";
}

}  // namespace hpcreward::symbol_policy
