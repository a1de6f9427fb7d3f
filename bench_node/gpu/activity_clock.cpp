#include "bench_node/gpu/activity_clock.hpp"

#include <cupti_activity.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>

namespace hpcreward::gpu {

namespace {

// Buffers made before the candidate is loaded and handed back and forth: a candidate that
// fills the heap must not make CUPTI drop records (a dropped record could hide its work).
constexpr std::size_t kBufferBytes = 1 << 20;  // about 4,000 kernel records
constexpr int kBuffers = 4;

struct Records {
  std::mutex mutex;
  std::uint8_t *free[kBuffers] = {};
  int free_count = 0;
  std::uint64_t first_start = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last_end = 0;
  std::size_t count = 0;
  bool dropped = false;
};
Records records;

void take(const CUpti_Activity *record) {
  std::uint64_t start = 0, end = 0;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto *kernel = reinterpret_cast<const CUpti_ActivityKernel10 *>(record);
      start = kernel->start;
      end = kernel->end;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto *copy = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(record);
      start = copy->start;
      end = copy->end;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto *set = reinterpret_cast<const CUpti_ActivityMemset4 *>(record);
      start = set->start;
      end = set->end;
      break;
    }
    default: return;
  }
  if (end < start || start == 0) {  // not filled in: it cannot be placed
    records.dropped = true;
    return;
  }
  records.first_start = std::min(records.first_start, start);
  records.last_end = std::max(records.last_end, end);
  ++records.count;
}

void CUPTIAPI buffer_requested(std::uint8_t **buffer, std::size_t *size, std::size_t *max_records) {
  std::lock_guard lock(records.mutex);
  *max_records = 0;
  if (records.free_count == 0) {
    *buffer = nullptr;  // CUPTI drops records: span() says so
    *size = 0;
    records.dropped = true;
    return;
  }
  *buffer = records.free[--records.free_count];
  *size = kBufferBytes;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t *buffer, std::size_t, std::size_t valid) {
  std::lock_guard lock(records.mutex);
  CUpti_Activity *record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) take(record);
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0) records.dropped = true;
  records.free[records.free_count++] = buffer;
}

void reset() {
  std::lock_guard lock(records.mutex);
  records.first_start = std::numeric_limits<std::uint64_t>::max();
  records.last_end = 0;
  records.count = 0;
  records.dropped = false;
}

}  // namespace

bool ActivityClock::start(std::string &error) {
  for (int i = 0; i < kBuffers; ++i) {
    void *buffer = std::aligned_alloc(8, kBufferBytes);
    if (buffer == nullptr) {
      error = "no memory for the activity buffers";
      return false;
    }
    records.free[records.free_count++] = static_cast<std::uint8_t *>(buffer);
  }
  const char *text = nullptr;
  CUptiResult result = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET})
    if (result == CUPTI_SUCCESS) result = cuptiActivityEnable(kind);
  if (result != CUPTI_SUCCESS) {
    cuptiGetResultString(result, &text);
    error = std::string("CUPTI activity records: ") + (text ? text : "unknown error");
    return false;
  }
  return true;
}

void ActivityClock::begin() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  reset();
}

bool ActivityClock::span(double &seconds, std::size_t &count) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(records.mutex);
  count = records.count;
  if (records.dropped || records.count == 0) return false;
  seconds = static_cast<double>(records.last_end - records.first_start) * 1e-9;
  return true;
}

}  // namespace hpcreward::gpu
