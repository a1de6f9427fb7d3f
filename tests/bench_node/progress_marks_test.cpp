#include "bench_node/process/progress_marks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>

#include <gtest/gtest.h>

#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {
namespace {

struct Pipe {
  int read_end = -1, write_end = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_NONBLOCK), 0);
    read_end = fds[0];
    write_end = fds[1];
  }
  ~Pipe() {
    ::close(read_end);
    ::close(write_end);
  }
  long bytes() const {
    char buffer[4096];
    long total = 0;
    for (ssize_t got; (got = ::read(read_end, buffer, sizeof buffer)) > 0;) total += got;
    return total;
  }
};

TEST(ProgressMarks, AtMostOneBytePerInterval) {
  Pipe pipe;
  ProgressMarks marks(pipe.write_end);
  // A fast kernel's calls: thousands within one interval wake the rank once.
  for (int call = 0; call < 5000; ++call) marks.mark();
  EXPECT_EQ(pipe.bytes(), 1);
  // Calls spread over about three intervals: at most a byte in each (and some: a loaded
  // machine may hold this thread off for an interval, so not necessarily three).
  const double start = monotonic_seconds();
  while (monotonic_seconds() - start < 3.05 * ProgressMarks::kMarkIntervalS) marks.mark();
  const long more = pipe.bytes();
  EXPECT_GE(more, 1);
  EXPECT_LE(more, 4);
  EXPECT_EQ(marks.written(), 1 + more);
}

TEST(ProgressMarks, NoDescriptorOrAClosedPipeIsHarmless) {
  ProgressMarks none(-1);
  none.mark();
  EXPECT_EQ(none.written(), 0);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_NONBLOCK), 0);
  ::close(fds[0]);  // the reader is gone: the write fails (EPIPE; SIGPIPE is ignored here)
  ::signal(SIGPIPE, SIG_IGN);
  ProgressMarks orphan(fds[1]);
  orphan.mark();
  EXPECT_EQ(orphan.written(), 0);
  ::close(fds[1]);
}

}  // namespace
}  // namespace hpcreward
