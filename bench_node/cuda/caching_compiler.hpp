#pragma once
// "An identical source compiles once": a Compiler decorator that keeps what the compiler
// made of a (source, flags, compiler identity) and hands a private copy of the object to
// every later identical request, into that request's directory. Compile errors are kept
// too (same verdict, same log). Only repeatable outcomes are kept (compiler.hpp): a
// compiler that hit its time or memory limit, was killed or did not start is asked again.
//
// Bounded (least recently used, by count) and thread-safe: the rank compiles on worker
// threads. Identical requests that arrive while the first one compiles wait for it instead
// of compiling again. Objects are copied, never linked: a handed-out object shares nothing
// with the cache, so nothing done to it can reach a later candidate.
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/process/work_dir.hpp"

namespace hpcreward {

struct CompileCacheOptions {
  // The cache makes its private directory (mode 0700) in here, removed with the cache;
  // empty: $TMPDIR.
  std::filesystem::path root;
  std::size_t capacity = 256;  // entries kept (objects and errors); 0 keeps nothing
};

// The cache key: SHA-256 of the identity, the flags and the source, each length-prefixed.
std::string compile_cache_key(const std::string &identity, const CompileRequest &request);

class CachingCompiler : public Compiler {
 public:
  // `identity`: everything besides source and flags that decides the build (nvcc_identity).
  // Throws std::filesystem::filesystem_error when the cache directory can't be made.
  CachingCompiler(std::unique_ptr<Compiler> inner, std::string identity,
                  const CompileCacheOptions &options = {});
  ~CachingCompiler() override;
  CachingCompiler(const CachingCompiler &) = delete;
  CachingCompiler &operator=(const CachingCompiler &) = delete;

  CompileOutcome compile(const CompileRequest &request) override;

  struct Stats {
    std::size_t hits = 0, misses = 0, entries = 0;
  };
  Stats stats() const;

 private:
  struct Entry {
    CompileOutcome outcome;             // as the compiler gave it (object: its file name)
    std::filesystem::path cached;       // the kept object; empty for a failure
    std::list<std::string>::iterator use;
  };
  // Under the lock: a copy of a kept outcome in `request`'s directory, or nullopt when it
  // can't be handed out (the copy failed: then it is compiled again).
  std::optional<CompileOutcome> hand_out(Entry &entry, const CompileRequest &request);
  void keep(const std::string &key, const CompileOutcome &outcome);  // under the lock

  std::unique_ptr<Compiler> inner_;
  std::string identity_;
  std::size_t capacity_;
  std::unique_ptr<WorkDir> directory_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> uses_;  // most recent first
  std::set<std::string> compiling_;
  Stats stats_;
};

}  // namespace hpcreward
