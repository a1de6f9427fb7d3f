#include "bench_node/gpu/gpu_task_pipeline.hpp"

#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {

GpuTaskPipeline::GpuTaskPipeline(Scorer &scorer, int workers, Finish finish, AfterRun after_run)
    : scorer_(scorer), finish_(std::move(finish)), after_run_(std::move(after_run)) {
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { prepare_loop(); });
  gpu_thread_ = std::thread([this] { gpu_loop(); });
}

GpuTaskPipeline::~GpuTaskPipeline() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread &worker : workers_) worker.join();
  gpu_thread_.join();
}

void GpuTaskPipeline::submit(BenchTask task) {
  {
    std::lock_guard lock(mutex_);
    to_prepare_.push_back(std::move(task));
    ++in_flight_;
  }
  work_ready_.notify_all();
}

std::vector<BenchResult> GpuTaskPipeline::take_results() {
  std::lock_guard lock(mutex_);
  std::vector<BenchResult> taken;
  taken.swap(results_);
  in_flight_ -= static_cast<int>(taken.size());
  return taken;
}

bool GpuTaskPipeline::idle() const {
  std::lock_guard lock(mutex_);
  return in_flight_ == 0;
}

bool GpuTaskPipeline::gpu_lost() const {
  std::lock_guard lock(mutex_);
  return gpu_lost_;
}

double GpuTaskPipeline::gpu_busy_s() const {
  std::lock_guard lock(mutex_);
  return gpu_busy_s_;
}

void GpuTaskPipeline::prepare_loop() {
  for (;;) {
    BenchTask task;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || !to_prepare_.empty(); });
      if (stopping_) return;
      task = std::move(to_prepare_.front());
      to_prepare_.pop_front();
    }
    PreparedTask prepared = scorer_.prepare(task);
    if (prepared.refused) {  // never waits for the GPU
      BenchResult result = finish_(prepared.task, *prepared.refused);
      std::lock_guard lock(mutex_);
      results_.push_back(std::move(result));
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      to_run_.push_back(std::move(prepared));
    }
    work_ready_.notify_all();
  }
}

void GpuTaskPipeline::gpu_loop() {
  for (;;) {
    PreparedTask prepared;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || (!to_run_.empty() && !gpu_lost_); });
      if (stopping_) return;
      prepared = std::move(to_run_.front());
      to_run_.pop_front();
    }
    const double start = monotonic_seconds();
    Measurement measurement = scorer_.run(prepared);
    const double busy = monotonic_seconds() - start;
    const bool healthy = after_run_(prepared.task, measurement);
    BenchResult result = finish_(prepared.task, std::move(measurement));
    {
      std::lock_guard lock(mutex_);
      gpu_busy_s_ += busy;
      results_.push_back(std::move(result));
      if (!healthy) gpu_lost_ = true;
    }
  }
}

}  // namespace hpcreward
