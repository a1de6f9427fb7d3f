#pragma once
// Compiling a candidate into a shared object the runner can load. `Compiler` is the
// boundary (tests and future compilers plug in); GccCompiler runs the C compiler in a
// limited child process.
#include <filesystem>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace hpcreward {

struct CompileRequest {
  std::string source;                       // C source text
  std::vector<std::string> flags;           // the stage's flags, e.g. {"-O3"}
  std::filesystem::path directory;          // private work directory; the source and object go here
  std::vector<std::string> libraries = {};  // the stage's (common/stage_libraries.hpp); nvcc's to use
};

struct CompileOutcome {
  Verdict verdict;                 // ok, or compile_error with the reason
  std::filesystem::path object;    // the shared object when ok
  double seconds = 0;              // wall time
  std::string log;                 // the compiler's first output bytes
  // The compiler ran to its end (an object, or its own error exit): the same request gives
  // the same outcome, so it may be cached. False for time and memory limits, signals and
  // failures to start, which may not recur.
  bool repeatable = false;
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual CompileOutcome compile(const CompileRequest &request) = 0;
};

struct GccOptions {
  std::string cc = "gcc";
  double timeout_s = 30;
  std::uint64_t memory_bytes = 2ULL << 30;     // RLIMIT_AS per compiler process
  std::uint64_t file_size_bytes = 64ULL << 20;  // RLIMIT_FSIZE
};

class GccCompiler : public Compiler {
 public:
  static constexpr const char *kSourceName = "cand.c";
  static constexpr const char *kObjectName = "cand.so";
  // Only matmul is exported; with -ffunction-sections and --gc-sections the linker then drops
  // every function that neither matmul nor load-time code reaches (a self-test main, unused
  // helpers), so the object audit and technique detection judge what can run.
  static constexpr const char *kExportsName = "cand.exports";
  static constexpr const char *kExportsScript = "{\n  global: matmul;\n  local: *;\n};\n";

  explicit GccCompiler(GccOptions options) : options_(std::move(options)) {}
  CompileOutcome compile(const CompileRequest &request) override;
  // cc's arguments: -std=gnu11 -shared -fPIC <flags> -ffunction-sections -fdata-sections
  // -Wl,--gc-sections,--version-script=cand.exports -Wl,-z,defs -o cand.so cand.c -lm
  std::vector<std::string> arguments(const CompileRequest &request) const;

 private:
  GccOptions options_;
};

// Writes `text` to a new private file (mode 0600, O_EXCL, no symlink followed); false on any
// failure.
bool write_private_file(const std::filesystem::path &path, const std::string &text);

// The line of a compiler log that says what went wrong: the first "error" line, else the
// first line that is not blank.
std::string first_error_line(const std::string &log);
// Up to `count` of the log's error lines (the compiler's own messages, in order, distinct),
// joined by "; ": what a model needs to fix more than the first mistake at once.
std::string first_error_lines(const std::string &log, std::size_t count);

// The first line `cc ARGUMENTS...` prints (run as a limited child); empty when it fails.
std::string query_compiler(const std::string &cc, const std::vector<std::string> &arguments);

// What `cc -std=gnu11 FLAGS -dM -E -x c /dev/null` prints: the predefined macros under a
// stage's flags (which ISA they target: __AVX__, __AVX512F__); empty when it fails.
std::string predefined_macros(const std::string &cc, const std::vector<std::string> &flags);

// The first line of `cc --version`; empty when it fails.
std::string compiler_version(const std::string &cc);

}  // namespace hpcreward
