#include "bench_node/cpu/guarded_buffer.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "bench_node/cpu/operands.hpp"

namespace hpcreward {
namespace {

TEST(GuardedBuffer, FreshBufferIsIntactAndAligned) {
  HeapOperandMemory memory;
  GuardedBuffer buffer(1000, memory);
  EXPECT_TRUE(buffer.guards_intact());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % GuardedBuffer::kAlignment, 0u);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer.data()[i] = std::byte{0x5a};
  EXPECT_TRUE(buffer.guards_intact());  // the whole payload is writable
}

TEST(GuardedBuffer, DetectsAWriteJustPastTheEnd) {
  HeapOperandMemory memory;
  GuardedBuffer buffer(1001, memory);
  buffer.data()[1001] = ~buffer.data()[1001];
  EXPECT_FALSE(buffer.guards_intact());
}

TEST(GuardedBuffer, DetectsAWriteJustBeforeTheStart) {
  HeapOperandMemory memory;
  GuardedBuffer buffer(64, memory);
  buffer.front_guard()[GuardedBuffer::kGuardBytes - 1] ^= std::byte{1};
  EXPECT_FALSE(buffer.guards_intact());
}

TEST(GuardedBuffer, DetectsAWriteFarIntoTheGuard) {
  HeapOperandMemory memory;
  GuardedBuffer buffer(64, memory);
  buffer.back_guard()[GuardedBuffer::kGuardBytes - 1] ^= std::byte{0x80};
  EXPECT_FALSE(buffer.guards_intact());
}

TEST(GuardedBuffer, EachBufferHasACanaryOfItsOwn) {
  // Canaries come from the kernel's random source, one secret per buffer: a candidate that
  // reads one guard zone learns nothing about another (nor about any check of the harness).
  HeapOperandMemory memory;
  GuardedBuffer one(64, memory), two(64, memory);
  EXPECT_NE(std::memcmp(one.back_guard(), two.back_guard(), GuardedBuffer::kGuardBytes), 0);
  EXPECT_NE(std::memcmp(one.front_guard(), one.back_guard(), GuardedBuffer::kGuardBytes), 0);
}

TEST(Operands, RefillPoisonsTheOutputAndKeepsPristineInputs) {
  HeapOperandMemory memory;
  Operands<double> operands(Shape{4, 3, 5}, Layout{}, memory);
  Rng rng(1);
  operands.refill(rng);
  for (double value : operands.c(0)) EXPECT_TRUE(std::isnan(value));
  EXPECT_TRUE(operands.check_memory("here").ok());
}

TEST(Operands, ReportsGuardAndInputDamage) {
  HeapOperandMemory memory;
  Operands<double> operands(Shape{4, 3, 5}, Layout{}, memory);
  Rng rng(1);
  operands.refill(rng);
  const_cast<double *>(operands.a_given())[2] += 1.0;
  Verdict verdict = operands.check_memory("at 4x3x5");
  EXPECT_EQ(verdict.status, Status::wrong_answer);
  EXPECT_NE(verdict.reason.find("inputs modified"), std::string::npos);

  operands.refill(rng);
  operands.c_buffer().back_guard()[3] ^= std::byte{1};
  verdict = operands.check_memory("at 4x3x5");
  EXPECT_EQ(verdict.status, Status::runtime_error);
  EXPECT_NE(verdict.reason.find("wrote outside its output"), std::string::npos);
}

}  // namespace
}  // namespace hpcreward
