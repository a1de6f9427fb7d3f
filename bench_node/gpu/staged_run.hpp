#pragma once
// A candidate's run on the GPU in stages, so that the rank can set the next candidate's
// processes up while the current one runs without any of that setting-up reaching the current
// one's calibration or timed calls. The measurer's side of it is start_gate.hpp; the rank's
// pipeline (gpu_task_pipeline.hpp) orders the stages of two runs:
//
//   current:  go ── canary, references, warm-up ── [quiet] ── calibrate ── [calibrated] ── verify, warm up ── [time] ── timed calls ── result ── end
//   next:     start (its process, the driver) ────────────────── prepare ── contexts, pool ── [ready] ·········· go ── canary, warm-up ── [quiet] ...
//
// so the next one's GPU work overlaps only the current one's verification and warm-up, which
// are not timed, and the current one's end (its executor killed and reaped) overlaps only the
// next one's canary, the references of its full checks and its warm-up: the next one
// calibrates once the current one has ended.
// No CUDA here.
#include "bench_node/process/phase_times.hpp"
#include "common/messages.hpp"

namespace hpcreward {

// The awaits return at once for what the run has said before (the pipeline may ask twice).
class StagedRun {
 public:
  virtual ~StagedRun() = default;  // a run not finished is ended
  virtual void prepare() = 0;           // set up the processes, contexts, cuBLAS; no timing
  // Until set up: true. False when the run ended (or its wait ran out) first: its set-up
  // failed, and its candidate, loaded only after go(), never ran.
  virtual bool await_ready() = 0;
  virtual void go() = 0;                // the GPU is this run's
  virtual void quiet() = 0;             // the run before has ended: it may calibrate
  virtual void await_calibrated() = 0;  // until its calibration is done (or it ended)
  virtual void allow_timing() = 0;      // nothing else prepares now: it may time its calls
  virtual Measurement finish() = 0;     // until its result; never throws
  // After finish(): until what it made for its candidate is gone (its executor reaped). The
  // next run's quiet() waits for this.
  virtual void await_ended() = 0;
  // After finish(): where the measurer says the run's time went from go() on (a diagnostic;
  // empty when it does not say).
  virtual PhaseSeconds phases() const { return {}; }
};

}  // namespace hpcreward
