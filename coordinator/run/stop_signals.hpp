#pragma once
// The signals that stop the coordinator, as flags the main thread reads (the handlers only
// set them, which is async-signal-safe; MPI and HDF5 stay on the main thread).
//   SIGUSR1          stop for a requeue, in every mode: Slurm's time-limit warning
//                    (--signal=USR1@SECONDS) or preemption; srun forwards it to every task
//   SIGTERM, SIGINT, SIGUSR2
//                    serve mode: finish the batches accepted, then exit 0;
//                    file mode: the same as SIGUSR1. SIGUSR2 is the job scripts' "the trainer
//                    is done": srun forwards it to every task (a SIGTERM to srun would
//                    cancel the step), and the benchmark ranks ignore it
namespace hpcreward {

// Installs the handlers (SA_RESTART). Call it early: SIGUSR1's default action kills.
void install_stop_signals();
bool finish_requested();   // SIGTERM, SIGINT or SIGUSR2 came
bool requeue_requested();  // SIGUSR1 came
// The first stop signal that came, for messages ("SIGUSR1"); empty when none.
const char *first_stop_signal();

}  // namespace hpcreward
