#include "coordinator/run/stop_signals.hpp"

#include <csignal>

namespace hpcreward {
namespace {

volatile std::sig_atomic_t finish_flag = 0;
volatile std::sig_atomic_t requeue_flag = 0;
volatile std::sig_atomic_t first_signal = 0;

extern "C" void on_stop_signal(int signal) {
  if (first_signal == 0) first_signal = signal;
  if (signal == SIGUSR1)
    requeue_flag = 1;
  else
    finish_flag = 1;
}

}  // namespace

void install_stop_signals() {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
  sigaction(SIGUSR2, &action, nullptr);
}

bool finish_requested() { return finish_flag != 0; }

bool requeue_requested() { return requeue_flag != 0; }

const char *first_stop_signal() {
  switch (first_signal) {
    case SIGUSR1: return "SIGUSR1";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGUSR2: return "SIGUSR2";
    default: return "";
  }
}

}  // namespace hpcreward
