// The measurer/executor separation on candidates compiled here (hostile ones included, which
// therefore run only inside the built hpcreward-executor's sandbox).
#include "bench_node/cpu/executor_process.hpp"

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
  Operands<double> operands(Shape{8, 8, 8}, executor.memory());
  Rng rng(kernel_random_u64());
  operands.refill(rng);
  ASSERT_TRUE(executor.call(operands.shape(), operands.a_given(), operands.b_given(), operands.c_given()).verdict.ok());
  const double first = operands.c()[0];
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(operands.c()[0], first) << "the candidate's thread ran while the executor was stopped";
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

TEST_F(ExecutorProcessTest, AnObjectWithoutMatmulIsAFormatError) {
  const Measurement m = measure(compile("nothing", "int not_matmul(void) { return 1; }"));
  EXPECT_EQ(m.status, Status::format_error) << m.reason;
}

}  // namespace
}  // namespace hpcreward
