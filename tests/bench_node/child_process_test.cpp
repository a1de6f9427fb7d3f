// The sandbox on ordinary programs (/bin/sh and friends).
#include "bench_node/process/child_process.hpp"

#include <signal.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

ChildSpec shell(const std::string &script) {
  ChildSpec spec;
  spec.program = "/bin/sh";
  spec.arguments = {"-c", script};
  spec.environment = inherited_environment();
  spec.deadline_s = 20;
  return spec;
}

TEST(ChildProcess, ExitCodeAndMergedOutput) {
  const ChildOutcome outcome = run_child(shell("echo out; echo err >&2; exit 7"));
  ASSERT_TRUE(outcome.started) << outcome.start_error;
  EXPECT_TRUE(outcome.exited);
  EXPECT_EQ(outcome.exit_code, 7);
  EXPECT_EQ(outcome.output, "out\nerr\n");
  EXPECT_FALSE(outcome.timed_out);
}

TEST(ChildProcess, StdinIsDevNullAndOtherDescriptorsAreClosed) {
  const ChildOutcome outcome =
      run_child(shell("cat; ls /proc/self/fd | sort -n | tr '\\n' ' '"));
  EXPECT_EQ(outcome.exit_code, 0);
  // 0-2, plus the descriptor ls itself uses to read the directory.
  EXPECT_EQ(outcome.output, "0 1 2 3 ");
}

TEST(ChildProcess, ResultPipeAndToken) {
  ChildSpec spec = shell("read token <&4; printf 'got %s' \"$token\" >&3");
  spec.result_pipe = true;
  spec.token = std::string("secret\n");
  const ChildOutcome outcome = run_child(spec);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.result, "got secret");
}

TEST(ChildProcess, TheGateCarriesBytesBothWays) {
  ChildSpec spec = shell(
      "printf r >&7; a=$(dd bs=1 count=1 <&7 2>/dev/null); printf c >&7; b=$(dd bs=1 count=1 <&7 2>/dev/null);"
      " printf '%s then %s' \"$a\" \"$b\" >&3");
  spec.result_pipe = true;
  spec.gate = true;
  RunningChild child(spec);
  ASSERT_TRUE(child.started());
  EXPECT_TRUE(child.await('r', 20));
  EXPECT_TRUE(child.send('g'));
  EXPECT_TRUE(child.await('c', 20));
  EXPECT_TRUE(child.await('r', 0)) << "a byte seen before is still seen";
  EXPECT_TRUE(child.send('t'));
  const ChildOutcome outcome = child.finish();
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.result, "g then t");
  EXPECT_EQ(child.finish().result, "g then t") << "finish() again returns the same outcome";
}

TEST(ChildProcess, AGateClosedByItsChildReadsAsTheEnd) {
  ChildSpec spec = shell("exec 7>&-; sleep 30");
  spec.gate = true;
  RunningChild child(spec);
  ASSERT_TRUE(child.started());
  EXPECT_FALSE(child.await('r', 20));
  EXPECT_FALSE(child.await('c', 20)) << "a closed gate ends every later wait at once";
  // Destroyed unfinished: killed and reaped, not waited for.
}

// A child serving runs: tasks in as frames through the gate, results out as frames on the
// result pipe (frames.hpp: the length in 4 bytes of host order, then the payload; '\005\0\0\0'
// is 5 on every little-endian host, as ours are).
TEST(ChildProcess, AServingChildTakesTasksAndAnswersInFrames) {
  ChildSpec spec = shell(
      "for run in 1 2; do"
      "  k=$(dd bs=1 count=1 <&7 2>/dev/null); dd bs=1 count=4 <&7 >/dev/null 2>&1;"
      "  task=$(dd bs=1 count=3 <&7 2>/dev/null);"
      "  printf '\\005\\000\\000\\000%s:%s' \"$k\" \"$task\" >&3;"
      " done; sleep 30");
  spec.result_pipe = true;
  spec.gate = true;
  RunningChild child(spec);
  ASSERT_TRUE(child.started());
  ASSERT_TRUE(child.send_frame("one"));
  EXPECT_EQ(child.await_result_frame(20), std::optional<std::string>("T:one"));
  ASSERT_TRUE(child.send_frame("two"));
  EXPECT_EQ(child.await_result_frame(20), std::optional<std::string>("T:two"));
  EXPECT_TRUE(child.running()) << "it serves on until stopped";
  EXPECT_EQ(child.await_result_frame(0.2), std::nullopt) << "no third answer";
  const ChildOutcome outcome = child.stop(false);
  EXPECT_TRUE(outcome.signaled);
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_FALSE(child.running());
}

TEST(ChildProcess, ForgettingTheGateDropsWhatTheRunBeforeSaid) {
  // 'e' sent, then a result frame: once the frame is in, the 'e' is waiting in the socket.
  ChildSpec spec = shell("printf e >&7; printf '\\001\\000\\000\\000x' >&3; sleep 30");
  spec.result_pipe = true;
  spec.gate = true;
  RunningChild child(spec);
  ASSERT_TRUE(child.started());
  ASSERT_EQ(child.await_result_frame(20), std::optional<std::string>("x"));
  child.forget_gate_bytes();
  EXPECT_FALSE(child.await('e', 0.2)) << "the run before's byte counted for the next run";
}

TEST(ChildProcess, AServingChildThatEndsAnswersNoMore) {
  ChildSpec spec = shell("printf '\\002\\000\\000\\000ok' >&3; exit 4");
  spec.result_pipe = true;
  spec.gate = true;
  RunningChild child(spec);
  ASSERT_TRUE(child.started());
  EXPECT_EQ(child.await_result_frame(20), std::optional<std::string>("ok")) << "written before it ended";
  EXPECT_EQ(child.await_result_frame(20), std::nullopt);
  const ChildOutcome outcome = child.stop(false);
  EXPECT_TRUE(outcome.exited);
  EXPECT_EQ(outcome.exit_code, 4);
}

TEST(ChildProcess, WithoutAGateNothingIsSent) {
  RunningChild child(shell("exit 0"));
  EXPECT_FALSE(child.send('g'));
  EXPECT_FALSE(child.await('r', 0));
  EXPECT_EQ(child.finish().exit_code, 0);
}

TEST(ChildProcess, KilledBySignal) {
  const ChildOutcome outcome = run_child(shell("kill -SEGV $$"));
  EXPECT_TRUE(outcome.signaled);
  EXPECT_EQ(outcome.signal, SIGSEGV);
  EXPECT_EQ(describe_signal(SIGSEGV), "SIGSEGV (Segmentation fault)");
}

TEST(ChildProcess, CpuLimitSendsSigxcpu) {
  ChildSpec spec = shell("while :; do :; done");
  spec.limits.cpu_seconds = 1;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_TRUE(outcome.signaled);
  EXPECT_EQ(outcome.signal, SIGXCPU);
  EXPECT_GE(outcome.cpu_s, 0.5);  // the kernel checks the limit at tick granularity
  EXPECT_FALSE(outcome.timed_out);
}

TEST(ChildProcess, DeadlineKillsTheWholeGroup) {
  ChildSpec spec = shell("sleep 100 & sleep 100; echo never");
  spec.deadline_s = 0.5;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_LT(outcome.wall_s, 5);
  EXPECT_EQ(outcome.output, "");
}

TEST(ChildProcess, ProgressKeepsTheWatchdogQuiet) {
  // Marks every 0.1 s for about 1.5 s, three times the silence limit: it runs to its end.
  ChildSpec spec = shell("i=0; while [ $i -lt 15 ]; do printf x >&6; sleep 0.1; i=$((i+1)); done; echo done");
  spec.progress_pipe = true;
  spec.silence_limit_s = 0.5;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_TRUE(outcome.exited);
  EXPECT_EQ(outcome.output, "done\n");
  EXPECT_FALSE(outcome.went_silent);
  EXPECT_EQ(outcome.progress_marks, 15u);
}

TEST(ChildProcess, SilenceKillsTheWholeGroup) {
  // Two marks, then a hang (a call that never returns): killed the silence limit after the last
  // mark, long before the deadline. The gap between the marks is a tenth of the limit, so a
  // loaded machine that stretches it does not end the child early.
  ChildSpec spec = shell("printf x >&6; sleep 0.2; printf x >&6; sleep 100 & sleep 100; echo never");
  spec.progress_pipe = true;
  spec.silence_limit_s = 2;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_TRUE(outcome.went_silent);
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_EQ(outcome.progress_marks, 2u);
  EXPECT_GE(outcome.wall_s, 2.2);
  EXPECT_LT(outcome.wall_s, 30);
  EXPECT_EQ(outcome.output, "");

  // Never a mark: the limit counts from the start. A closed pipe is silence too.
  for (const char *script : {"sleep 100", "exec 6>&-; sleep 100"}) {
    ChildSpec quiet = shell(script);
    quiet.progress_pipe = true;
    quiet.silence_limit_s = 0.3;
    const ChildOutcome silent = run_child(quiet);
    EXPECT_TRUE(silent.went_silent) << script;
    EXPECT_LT(silent.wall_s, 30) << script;
  }
}

TEST(ChildProcess, TheDeadlineStillBindsAChildThatMarksForever) {
  ChildSpec spec = shell("while :; do printf x >&6; sleep 0.05; done");
  spec.progress_pipe = true;
  spec.silence_limit_s = 0.5;
  spec.deadline_s = 1;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_FALSE(outcome.went_silent);
  EXPECT_GT(outcome.progress_marks, 5u);
}

TEST(ChildProcess, NoProgressPipeUnlessAskedFor) {
  ChildSpec spec = shell("printf x >&6 || echo closed");
  spec.silence_limit_s = 0.2;  // without the pipe: no watchdog
  const ChildOutcome outcome = run_child(spec);
  EXPECT_TRUE(outcome.exited);
  EXPECT_NE(outcome.output.find("closed"), std::string::npos) << outcome.output;
  EXPECT_FALSE(outcome.went_silent);
}

TEST(ChildProcess, DoesNotWaitForLeftoverChildrenHoldingThePipes) {
  // The background sleep keeps stdout open after the shell exits; the group is killed.
  const ChildOutcome outcome = run_child(shell("sleep 100 & echo done"));
  EXPECT_TRUE(outcome.exited);
  EXPECT_EQ(outcome.output, "done\n");
  EXPECT_LT(outcome.wall_s, 5);
}

TEST(ChildProcess, OutputFloodIsBounded) {
  ChildSpec spec = shell("head -c 20000000 /dev/zero | tr '\\0' x; echo; echo end >&2");
  spec.output_limit = 4096;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.output.size(), 4096u);
  EXPECT_EQ(outcome.output_bytes, 20000000u + 1 + 4);
}

TEST(ChildProcess, LimitsApplyInTheChild) {
  ChildSpec spec = shell("ulimit -v; ulimit -d; ulimit -t; ulimit -f; ulimit -n; ulimit -c");
  spec.limits.address_space_bytes = 512ULL << 20;
  spec.limits.data_bytes = 256ULL << 20;
  spec.limits.cpu_seconds = 7;
  spec.limits.file_size_bytes = 0;
  spec.limits.open_files = 64;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_EQ(outcome.output, "524288\n262144\n7\n0\n64\n0\n");
}

TEST(ChildProcess, FileSizeLimitStopsWrites) {
  ChildSpec spec = shell("echo x > file_that_must_not_grow");
  spec.working_directory = ::testing::TempDir();
  spec.limits.file_size_bytes = 0;
  const ChildOutcome outcome = run_child(spec);
  EXPECT_TRUE(outcome.signaled || outcome.exit_code != 0);
  if (outcome.signaled) {
    EXPECT_EQ(outcome.signal, SIGXFSZ);
  }
  std::filesystem::remove(std::filesystem::path(::testing::TempDir()) / "file_that_must_not_grow");
}

TEST(ChildProcess, WorkingDirectoryAndEnvironment) {
  ChildSpec spec = shell("pwd; echo $HPCREWARD_TEST_VALUE");
  spec.working_directory = "/";
  set_variable(spec.environment, "HPCREWARD_TEST_VALUE", "42");
  const ChildOutcome outcome = run_child(spec);
  EXPECT_EQ(outcome.output, "/\n42\n");
}

TEST(ChildProcess, ExecFailureIsReportedNotThrown) {
  ChildSpec spec;
  spec.program = "/nonexistent/program";
  const ChildOutcome outcome = run_child(spec);
  EXPECT_FALSE(outcome.started);
  EXPECT_NE(outcome.start_error.find("execve"), std::string::npos) << outcome.start_error;
  spec = shell("true");
  spec.working_directory = "/nonexistent/directory";
  EXPECT_FALSE(run_child(spec).started);
}

TEST(ChildProcess, FirstLine) {
  EXPECT_EQ(first_line("\n\n  hello world  \nsecond"), "hello world");
  EXPECT_EQ(first_line(""), "");
  EXPECT_EQ(first_line("abcdef", 3), "abc");
}

TEST(Environment, SetAndGet) {
  Environment environment{"A=1", "AB=2"};
  set_variable(environment, "A", "3", false);
  EXPECT_EQ(get_variable(environment, "A"), "1");
  set_variable(environment, "A", "3");
  EXPECT_EQ(get_variable(environment, "A"), "3");
  EXPECT_EQ(get_variable(environment, "AB"), "2");
  set_variable(environment, "C", "4", false);
  EXPECT_EQ(get_variable(environment, "C"), "4");
  EXPECT_FALSE(get_variable(environment, "D"));
  EXPECT_TRUE(find_executable("sh"));
  EXPECT_FALSE(find_executable("surely-no-such-program-exists"));
}

}  // namespace
}  // namespace hpcreward
