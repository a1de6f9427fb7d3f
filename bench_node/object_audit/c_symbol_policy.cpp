#include "bench_node/object_audit/c_symbol_policy.hpp"

#include <algorithm>
#include <iterator>

namespace hpcreward {

namespace {

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

// Output to the candidate's own stdout and stderr, formatting into its memory, and ending
// itself (source_checks/call_policy.hpp says why these are harmless under the filter); the
// _chk variants are the fortified spellings.
constexpr std::string_view kOwnOutputAndEnd[] = {
    "printf",   "fprintf",  "vprintf",   "vfprintf",       "puts",          "fputs",
    "putchar",  "fputc",    "putc",      "fwrite",         "fflush",        "perror",
    "sprintf",  "snprintf", "vsprintf",  "vsnprintf",      "__printf_chk",  "__fprintf_chk",
    "__vprintf_chk", "__vfprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vsprintf_chk",
    "__vsnprintf_chk", "stdout", "stderr", "__assert_fail", "__assert_perror_fail", "abort", "exit",
    "_Exit"};

// <stdlib.h>'s integer absolute values (gcc folds them inline unless -fno-builtin); the stack
// protector's failure path and the TLS accessor thread-local variables need in -fPIC code; the
// OpenMP runtime, but for the refusals below.
constexpr std::string_view kOtherImports[] = {"abs",            "labs",   "llabs", "__stack_chk_fail",
                                              "__tls_get_addr", "GOMP_*", "omp_*"};

// libgomp exports that are not computation: refused with their own reason, matched as
// prefixes so the Fortran spellings (omp_get_wtime_) are caught too.
constexpr RefusedName kOpenMpRefusals[] = {
    {"omp_get_wtime*", "a clock: the harness owns the clock"},
    {"omp_get_wtick*", "a clock: the harness owns the clock"},
    {"omp_display_*", "it writes to the output"},
    {"GOMP_error*", "`#pragma omp error` writes to the output or ends the process"},
    {"GOMP_warning*", "`#pragma omp error` writes to the output"},
    {"GOMP_target*", "device offloading: candidates run on the host"},
    {"GOMP_offload_*", "device offloading: candidates run on the host"},
    {"omp_target_*", "device offloading: candidates run on the host"},
    {"GOMP_PLUGIN_*", "libgomp's plugin interface"},
};

constexpr std::string_view kLibraries[] = {"libc.so.6", "libm.so.6", "libmvec.so.1", "libgomp.so.1",
                                           "libgcc_s.so.1", "ld-linux*"};

bool math_function(std::string_view name) {
  auto listed = [](std::string_view base) {
    return std::find(std::begin(kMathFunctions), std::end(kMathFunctions), base) != std::end(kMathFunctions);
  };
  if (listed(name)) return true;
  return name.size() >= 2 && (name.back() == 'f' || name.back() == 'l') && listed(name.substr(0, name.size() - 1));
}

// libmvec's vector variants of a math function (_ZGVdN4v_exp).
bool vector_math_function(std::string_view name) {
  const std::optional<std::string_view> base = vector_variant_base(name);
  return base && math_function(*base);
}

}  // namespace

bool math_import(std::string_view name) { return math_function(name) || vector_math_function(name); }

std::span<const std::string_view> memory_imports() { return kMemoryFunctions; }

std::span<const std::string_view> own_output_imports() { return kOwnOutputAndEnd; }

const ImportTable &c_import_table() {
  static const ImportTable table{
      .symbols = {.allowed = joined<std::string_view>({kMemoryFunctions, kOtherImports, kOwnOutputAndEnd,
                                                       startup_hooks()}),
                  .refused = {std::begin(kOpenMpRefusals), std::end(kOpenMpRefusals)}},
      .allowed_family = &math_import,
      .unlisted = "only libm, memory and OpenMP runtime functions are allowed, and output to stdout and "
                  "stderr (printf, puts, fwrite, fflush, assert, abort, exit)",
      .libraries = {.allowed = {std::begin(kLibraries), std::end(kLibraries)}}};
  return table;
}

ExportTable c_export_table(std::shared_ptr<const LibrarySymbols> libraries) {
  return {.mangled_names = false, .taken = [libraries](const std::string &name) -> std::optional<std::string> {
            if (auto library = libraries->library_defining(name))
              return "a library symbol (of " + *library + "); give helpers other names or make them static";
            return std::nullopt;
          }};
}

}  // namespace hpcreward
