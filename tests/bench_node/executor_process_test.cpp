// The measurer/executor separation on candidates compiled here (hostile ones included, which
// therefore run only inside the built hpcreward-executor's sandbox).
#include "bench_node/cpu/executor_process.hpp"
#include "bench_node/cpu/forced_switches.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "bench_node/cpu/harness.hpp"
#include "bench_node/cpu/operands.hpp"
#include "bench_node/measure/random_fill.hpp"

namespace hpcreward {
namespace {

namespace fs = std::filesystem;

const char *kSignature = "void matmul(int m, int n, int k, const double *A, const double *B, double *C)";
const char *kProduct = R"(
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
)";

class ExecutorProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hpcreward-executor-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string compile(const std::string &name, const std::string &source, const std::string &flags = "") {
    const fs::path c = dir_ / (name + ".c"), so = dir_ / (name + ".so");
    std::ofstream(c) << source;
    const std::string command = "cc -O2 -shared -fPIC " + flags + " -o " + so.string() + " " + c.string();
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return so.string();
  }
  ExecutorOptions options(const std::string &object, std::size_t operand_bytes) const {
    return {.program = HPCREWARD_EXECUTOR_PATH, .object = object, .element_bytes = 8, .operand_bytes = operand_bytes};
  }
  HarnessConfig config() const {
    HarnessConfig config;
    config.nominal = {24, 20, 16};
    config.check_shapes = {{5, 3, 7}};
    config.tolerance = 1e-10;
    config.timing.warmup_s = 0.001;
    config.timing.time_cap_s = 0.02;
    config.timing.min_reps = 5;
    config.timing.max_reps = 20;
    return config;
  }
  Measurement measure(const std::string &object) {
    const HarnessConfig c = config();
    ExecutorProcess executor(options(object, harness_operand_bytes<double>(c)));
    if (Verdict verdict = executor.start(); !verdict.ok()) return failed_measurement(verdict.status, verdict.reason);
    EXPECT_GT(executor.handshake_s(), 0);
    return run_harness<double>(executor, c);
  }

  fs::path dir_;
};

TEST_F(ExecutorProcessTest, AnHonestCandidateIsMeasured) {
  const Measurement m = measure(compile("honest", std::string(kSignature) + "{" + kProduct + "}"));
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_GE(m.reps, 5);
  EXPECT_GT(m.median_s, 0);
}

TEST_F(ExecutorProcessTest, NothingRunsInTheExecutorBetweenCalls) {
  // A thread of the candidate's keeps writing into C after matmul returned (as device code or
  // a helper thread that outlives the call would): once the call is over, the whole executor
  // is stopped, so C holds still while the measurer reads it.
  const std::string source = std::string("#include <pthread.h>\nstatic volatile double *out;\n"
                                         "static void *spin(void *unused) { for (double v = 0;; v += 1) if (out) out[0] = v; return 0; }\n") +
                             kSignature + "{ static pthread_t t; static int started;" + kProduct +
                             "out = C; if (!started) { started = 1; pthread_create(&t, 0, spin, 0); } }";
  ExecutorProcess executor(options(compile("outlives", source, "-pthread"), 1 << 20));
  ASSERT_TRUE(executor.start().ok());
  Operands<double> operands(Shape{8, 8, 8}, Layout{}, executor.memory());
  Rng rng(kernel_random_u64());
  operands.refill(rng);
  ASSERT_TRUE(executor.call(operands.shape(), operands.a_given(), operands.b_given(), operands.c_given()).verdict.ok());
  const double first = operands.c(0)[0];
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(operands.c(0)[0], first) << "the candidate's thread ran while the executor was stopped";
}

TEST_F(ExecutorProcessTest, ACandidateThatEndsItsProcessIsARuntimeError) {
  const Measurement m = measure(compile("exits", std::string("#include <unistd.h>\n") + kSignature + "{ _exit(0); }"));
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.reason.find("exited with code 0"), std::string::npos) << m.reason;
}

TEST_F(ExecutorProcessTest, TheMeasurersDescriptorsAndMemoryAreOutOfReach) {
  // Writing to any descriptor but stdout and stderr (the result pipe was fd 3 in the measurer),
  // or reading the measurer's memory, is a system call the executor's filter kills.
  for (const std::string body : {"write(3, \"x\", 1);", "write(4, \"x\", 1);",
                                 "char b[8]; struct iovec l = {b, 8}, r = {(void *)0x400000, 8};"
                                 " process_vm_readv(getppid(), &l, 1, &r, 1, 0);"}) {
    const Measurement m = measure(compile("reach", std::string("#define _GNU_SOURCE\n#include <unistd.h>\n#include <sys/uio.h>\n") +
                                                       kSignature + "{" + body + kProduct + "}"));
    EXPECT_EQ(m.status, Status::forbidden) << body << ": " << m.reason;
  }
  // Nor may it ask for its measurer's pid, and /proc/<pid>/mem cannot even be opened (every
  // open fails inside the sandbox; a candidate that carries on is measured as usual).
  Measurement m = measure(compile("ppid", std::string("#include <unistd.h>\n") + kSignature +
                                              "{ if (getppid() == 1) return;" + kProduct + "}"));
  EXPECT_EQ(m.status, Status::forbidden) << m.reason;
  m = measure(compile("proc_mem", std::string("#include <fcntl.h>\n") + kSignature +
                                      "{ if (open(\"/proc/1/mem\", O_RDONLY) >= 0) return;" + kProduct + "}"));
  EXPECT_EQ(m.status, Status::ok) << m.reason;
}

TEST_F(ExecutorProcessTest, CodeMadeAfterTheLoadIsForbidden) {
  // What a candidate that took over its own process would do to run instructions the object
  // audit never saw (AVX-512 in a stage without it, say): the calls go straight to the kernel.
  const std::string headers = "#define _GNU_SOURCE\n#include <sys/mman.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n"
                              "static char page[8192] __attribute__((aligned(4096)));\n";
  for (const std::string body :
       {"mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);",
        "mprotect(page, 4096, PROT_READ | PROT_EXEC);",
        "syscall(SYS_pkey_mprotect, page, 4096, PROT_READ | PROT_EXEC, -1);"}) {
    const Measurement m = measure(compile("exec", headers + kSignature + "{" + body + kProduct + "}"));
    EXPECT_EQ(m.status, Status::forbidden) << body << ": " << m.reason;
  }
}

TEST_F(ExecutorProcessTest, AnObjectThatMakesTheStackExecutableIsRefusedAtLoad) {
  const Measurement m = measure(compile("execstack", std::string(kSignature) + "{" + kProduct + "}", "-Wl,-z,execstack"));
  EXPECT_EQ(m.status, Status::compile_error) << m.reason;
  EXPECT_NE(m.reason.find("executable"), std::string::npos) << m.reason;
}

// The executor runs on the CPUs it was started on (the test process's, here one CPU), with
// OpenMP's team placed before the filter.
class ConfinedExecutorTest : public ExecutorProcessTest {
 protected:
  void SetUp() override {
    ExecutorProcessTest::SetUp();
    ASSERT_EQ(::sched_getaffinity(0, sizeof saved_, &saved_), 0);
    if (CPU_COUNT(&saved_) < 2) GTEST_SKIP() << "needs two CPUs";
  }
  void TearDown() override {
    ::sched_setaffinity(0, sizeof saved_, &saved_);
    for (const char *name : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "HPCREWARD_TEST_VICTIM"}) ::unsetenv(name);
    ExecutorProcessTest::TearDown();
  }
  // The first `count` CPUs of the test's mask.
  cpu_set_t first_cpus(int count) const {
    cpu_set_t some;
    CPU_ZERO(&some);
    for (int cpu = 0; cpu < CPU_SETSIZE && count > 0; ++cpu)
      if (CPU_ISSET(cpu, &saved_)) {
        CPU_SET(cpu, &some);
        --count;
      }
    return some;
  }
  cpu_set_t saved_;
};

TEST_F(ConfinedExecutorTest, NoThreadLeavesTheExecutorsCpusNorMovesAnotherProcess) {
  const cpu_set_t one = first_cpus(1);
  const pid_t victim = ::fork();
  ASSERT_GE(victim, 0);
  if (victim == 0) {
    ::sched_setaffinity(0, sizeof one, &one);
    ::alarm(60);
    for (;;) ::pause();
  }
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);  // the executor inherits it
  ::setenv("OMP_NUM_THREADS", "2", 1);
  ::setenv("HPCREWARD_TEST_VICTIM", std::to_string(victim).c_str(), 1);
  // Every thread asks for every CPU, for itself and for the victim; if any thread got more
  // than the one CPU, C is left unwritten and the run is a wrong answer.
  const std::string source = std::string("#define _GNU_SOURCE\n#include <sched.h>\n#include <stdlib.h>\n") + kSignature +
                             "{ cpu_set_t all, now; CPU_ZERO(&all); for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);"
                             "  int victim = atoi(getenv(\"HPCREWARD_TEST_VICTIM\")), wider = 0;\n"
                             "#pragma omp parallel num_threads(2) reduction(+ : wider)\n"
                             "  { sched_setaffinity(0, sizeof all, &all); sched_setaffinity(victim, sizeof all, &all);"
                             "    sched_getaffinity(0, sizeof now, &now); wider += CPU_COUNT(&now) > 1; }\n"
                             "  if (wider) return;" +
                             kProduct + "}";
  const Measurement m = measure(compile("widens", source, "-fopenmp"));
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  cpu_set_t victims;
  ASSERT_EQ(::sched_getaffinity(victim, sizeof victims, &victims), 0);
  EXPECT_TRUE(CPU_EQUAL(&victims, &one)) << "the candidate moved another process's threads";
  ::kill(victim, SIGKILL);
  ::waitpid(victim, nullptr, 0);
}

TEST_F(ConfinedExecutorTest, OpenMPThreadsArePlacedBeforeTheFilter) {
  // OMP_PROC_BIND pins each of the team's threads to a place of its own; a team made after
  // the filter could not be pinned (sched_setaffinity does nothing there).
  const cpu_set_t two = first_cpus(2);
  ASSERT_EQ(::sched_setaffinity(0, sizeof two, &two), 0);
  ::setenv("OMP_NUM_THREADS", "2", 1);
  ::setenv("OMP_PROC_BIND", "close", 1);
  ::setenv("OMP_PLACES", "threads", 1);
  const std::string source = std::string("#define _GNU_SOURCE\n#include <sched.h>\n#include <omp.h>\n") + kSignature +
                             "{ cpu_set_t mask[2]; int team = 0;\n"
                             "#pragma omp parallel num_threads(2)\n"
                             "  { int t = omp_get_thread_num(); sched_getaffinity(0, sizeof mask[t], &mask[t]);\n"
                             "#pragma omp single\n"
                             "    team = omp_get_num_threads(); }\n"
                             "  if (team != 2 || CPU_COUNT(&mask[0]) != 1 || CPU_COUNT(&mask[1]) != 1 || CPU_EQUAL(&mask[0], &mask[1]))"
                             "    return;" +
                             kProduct + "}";
  const Measurement m = measure(compile("placed", source, "-fopenmp"));
  EXPECT_EQ(m.status, Status::ok) << m.reason;
}

// The executor of the full checks starts the candidate's OpenMP team with its own count; the
// timed calls' executor keeps the inherited OMP_NUM_THREADS (the rank's share).
TEST_F(ExecutorProcessTest, OpenMPThreadsOfTheChecksAreTheExecutorsOwn) {
  ::setenv("OMP_NUM_THREADS", "1", 1);
  const std::string source = std::string("#include <omp.h>\n") + kSignature +
                             "{ int team = 0;\n"
                             "#pragma omp parallel\n"
                             "  {\n"
                             "#pragma omp single\n"
                             "    team = omp_get_num_threads(); }\n"
                             "  C[0] = team; C[1] = omp_get_max_threads(); }";
  const std::string object = compile("team", source, "-fopenmp");
  for (int threads : {0, 4, 6}) {
    ExecutorOptions these = options(object, 1 << 20);
    these.openmp_threads = threads;
    ExecutorProcess executor(these);
    ASSERT_TRUE(executor.start().ok());
    Operands<double> operands(Shape{4, 4, 4}, Layout{}, executor.memory());
    Rng rng(kernel_random_u64());
    operands.refill(rng);
    for (int call = 0; call < 3; ++call) {
      ASSERT_TRUE(executor.call(operands.shape(), operands.a_given(), operands.b_given(), operands.c_given()).verdict.ok());
      EXPECT_EQ(operands.c(0)[0], threads > 0 ? threads : 1) << threads;
      EXPECT_EQ(operands.c(0)[1], threads > 0 ? threads : 1) << threads;
    }
  }
  ::unsetenv("OMP_NUM_THREADS");
}

// A lost-update race (threads splitting the inner dimension, each adding into the same C
// without synchronization) on one CPU: the scheduler's time slices outlast each thread's share,
// so without forced switches the team would run one thread after another and every sum would be
// right. With them, threads interleave inside their load-add-store sequences, and the sums come
// out short in nearly every call (without them, none of 3 calls lost an update here).
TEST_F(ExecutorProcessTest, ForcedSwitchesShowARaceOnOneCpu) {
  cpu_set_t mine, one;
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mine)) {
      CPU_SET(cpu, &one);
      break;
    }
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);  // the executor inherits it
  const std::string source = std::string(kSignature) +
                             "{ for (int j = 0; j < n; ++j) C[j] = 0;\n"
                             "#pragma omp parallel for\n"
                             "  for (int p = 0; p < k; ++p)\n"
                             "    for (int j = 0; j < n; ++j) C[j] += A[p] * B[(long)p * n + j]; }";
  const std::string object = compile("race", source, "-fopenmp");
  const Shape shape{1, 64, 50000};
  ExecutorOptions these = options(object, Operands<double>::memory_bytes(shape) + (1 << 20));
  these.openmp_threads = 4;
  these.forced_switches_us = kForcedSwitchPeriodUs;
  ExecutorProcess executor(these);
  ASSERT_TRUE(executor.start().ok());
  Operands<double> operands(shape, Layout{}, executor.memory());
  Rng rng(kernel_random_u64());
  operands.refill(rng);
  std::vector<double> expected(shape.n, 0.0);
  for (long p = 0; p < shape.k; ++p)
    for (int j = 0; j < shape.n; ++j) expected[j] += operands.a(0)[p] * operands.b(0)[p * shape.n + j];
  int short_calls = 0;
  for (int call = 0; call < 5; ++call) {
    operands.poison_output();
    ASSERT_TRUE(executor.call(shape, operands.a_given(), operands.b_given(), operands.c_given()).verdict.ok());
    for (int j = 0; j < shape.n; ++j)
      if (!(std::fabs(operands.c_given()[j] - expected[j]) < 1e-6)) {  // a lost term is about 0.3
        ++short_calls;
        break;
      }
  }
  EXPECT_GE(short_calls, 4) << "updates were lost in " << short_calls << " calls of 5: the threads did not interleave";
  ::sched_setaffinity(0, sizeof mine, &mine);
}

TEST_F(ExecutorProcessTest, AnObjectWithoutMatmulIsAFormatError) {
  const Measurement m = measure(compile("nothing", "int not_matmul(void) { return 1; }"));
  EXPECT_EQ(m.status, Status::format_error) << m.reason;
}

}  // namespace
}  // namespace hpcreward
