#include "bench_node/cuda/caching_compiler.hpp"

#include "bench_node/process/monotonic_clock.hpp"
#include "common/sha256.hpp"

namespace hpcreward {

namespace fs = std::filesystem;

namespace {

void append_field(std::string &out, const std::string &field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

}  // namespace

std::string compile_cache_key(const std::string &identity, const CompileRequest &request) {
  std::string material;
  append_field(material, identity);
  append_field(material, std::to_string(request.flags.size()));
  for (const std::string &flag : request.flags) append_field(material, flag);
  for (const std::string &library : request.libraries) append_field(material, "library " + library);
  append_field(material, request.source);
  return sha256_hex(material);
}

CachingCompiler::CachingCompiler(std::unique_ptr<Compiler> inner, std::string identity,
                                 const CompileCacheOptions &options)
    : inner_(std::move(inner)), identity_(std::move(identity)), capacity_(options.capacity) {
  fs::path parent = options.root;
  if (parent.empty())
    parent = fs::temp_directory_path();
  else
    ensure_private_directory(parent);
  directory_ = std::make_unique<WorkDir>(parent, "compile-cache");
}

CachingCompiler::~CachingCompiler() = default;

CachingCompiler::Stats CachingCompiler::stats() const {
  const std::lock_guard lock(mutex_);
  Stats stats = stats_;
  stats.entries = entries_.size();
  return stats;
}

std::optional<CompileOutcome> CachingCompiler::hand_out(Entry &entry, const CompileRequest &request) {
  CompileOutcome outcome = entry.outcome;
  if (!entry.cached.empty()) {
    const fs::path object = request.directory / entry.outcome.object;
    std::error_code error;
    if (!fs::copy_file(entry.cached, object, fs::copy_options::none, error) || error) return std::nullopt;
    fs::permissions(object, fs::perms::owner_all, error);
    outcome.object = object;
  }
  uses_.splice(uses_.begin(), uses_, entry.use);
  return outcome;
}

void CachingCompiler::keep(const std::string &key, const CompileOutcome &outcome) {
  if (capacity_ == 0 || !outcome.repeatable || entries_.count(key) != 0) return;
  Entry entry;
  entry.outcome = outcome;
  entry.outcome.object.clear();
  if (outcome.verdict.ok()) {
    entry.cached = directory_->path() / (key + ".so");
    std::error_code error;
    if (!fs::copy_file(outcome.object, entry.cached, fs::copy_options::overwrite_existing, error) ||
        error)
      return;  // not kept; the request itself has its object
    fs::permissions(entry.cached, fs::perms::owner_read, error);
    entry.outcome.object = outcome.object.filename();
  }
  uses_.push_front(key);
  entry.use = uses_.begin();
  entries_.emplace(key, std::move(entry));
  while (entries_.size() > capacity_) {
    const auto oldest = entries_.find(uses_.back());
    std::error_code error;
    if (!oldest->second.cached.empty()) fs::remove(oldest->second.cached, error);
    entries_.erase(oldest);
    uses_.pop_back();
  }
}

CompileOutcome CachingCompiler::compile(const CompileRequest &request) {
  const double start = monotonic_seconds();
  const std::string key = compile_cache_key(identity_, request);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return compiling_.count(key) == 0; });
  if (const auto found = entries_.find(key); found != entries_.end())
    if (std::optional<CompileOutcome> outcome = hand_out(found->second, request)) {
      ++stats_.hits;
      outcome->seconds = monotonic_seconds() - start;
      return std::move(*outcome);
    }
  ++stats_.misses;
  compiling_.insert(key);
  lock.unlock();

  CompileOutcome outcome;
  try {
    outcome = inner_->compile(request);
  } catch (...) {
    lock.lock();
    compiling_.erase(key);
    done_.notify_all();
    throw;
  }
  lock.lock();
  keep(key, outcome);
  compiling_.erase(key);
  done_.notify_all();
  return outcome;
}

}  // namespace hpcreward
