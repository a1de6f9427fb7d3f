#include "common/byte_codec.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace hpcreward {
namespace {

TEST(ByteCodec, IntegersAreLittleEndianWhateverTheHost) {
  ByteWriter out;
  out.u32(0x01020304u);
  out.u64(0x0102030405060708ull);
  out.i32(-2);
  const std::string bytes = out.take();
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(bytes.substr(4, 8), std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  EXPECT_EQ(bytes.substr(12, 4), std::string("\xfe\xff\xff\xff", 4));
  ByteReader in(bytes);
  EXPECT_EQ(in.u32("a"), 0x01020304u);
  EXPECT_EQ(in.u64("b"), 0x0102030405060708ull);
  EXPECT_EQ(in.i32("c"), -2);
  in.expect_end("test");
}

TEST(ByteCodec, ExtremeIntegersRoundTrip) {
  ByteWriter out;
  out.i64(std::numeric_limits<std::int64_t>::min());
  out.i64(std::numeric_limits<std::int64_t>::max());
  out.u64(std::numeric_limits<std::uint64_t>::max());
  out.i32(std::numeric_limits<std::int32_t>::min());
  const std::string bytes = out.take();
  ByteReader in(bytes);
  EXPECT_EQ(in.i64("a"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(in.i64("b"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(in.u64("c"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(in.i32("d"), std::numeric_limits<std::int32_t>::min());
}

std::uint64_t bits_of(double value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

TEST(ByteCodec, DoublesComeBackBitForBitIncludingNanInfinityAndNegativeZero) {
  const double payload_nan = std::bit_cast<double>(0x7ff8000000000123ull);
  const double values[] = {0.0, -0.0, 1.5, -2.25e-300, std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                           payload_nan};
  ByteWriter out;
  for (double value : values) out.f64(value);
  const std::string bytes = out.take();
  EXPECT_EQ(bytes.substr(0, 8), std::string(8, '\0'));
  EXPECT_EQ(bytes.substr(16, 8), std::string("\0\0\0\0\0\0\xf8\x3f", 8));  // 1.5 = 0x3ff8000000000000
  ByteReader in(bytes);
  for (double value : values) EXPECT_EQ(bits_of(in.f64("value")), bits_of(value));
  in.expect_end("test");
}

TEST(ByteCodec, StringsKeepEmbeddedZerosAndEmptyOnes) {
  const std::string with_zero("a\0b", 3);
  ByteWriter out;
  out.string("");
  out.string(with_zero);
  out.strings({"x", "", "yz"});
  out.strings({});
  const std::string bytes = out.take();
  ByteReader in(bytes);
  EXPECT_EQ(in.string("empty"), "");
  EXPECT_EQ(in.string("zero"), with_zero);
  EXPECT_EQ(in.strings("list"), (std::vector<std::string>{"x", "", "yz"}));
  EXPECT_TRUE(in.strings("none").empty());
  in.expect_end("test");
}

TEST(ByteCodec, ReadingPastTheEndIsRefusedWithTheFieldAndOffset) {
  const std::string bytes("\x01\x02\x03", 3);
  ByteReader in(bytes);
  try {
    in.u32("sequence");
    FAIL() << "read 4 bytes out of 3";
  } catch (const MessageDecodeError &error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("truncated"), std::string::npos) << text;
    EXPECT_NE(text.find("sequence"), std::string::npos) << text;
    EXPECT_NE(text.find("offset 0"), std::string::npos) << text;
  }
}

TEST(ByteCodec, AStringLongerThanWhatIsLeftIsRefused) {
  ByteWriter out;
  out.u32(100);  // claims 100 bytes
  const std::string bytes = out.take() + "short";
  ByteReader in(bytes);
  EXPECT_THROW(in.string("source"), MessageDecodeError);
}

TEST(ByteCodec, AGarbageListCountNeverReservesMemory) {
  ByteWriter out;
  out.u32(0xffffffffu);  // four billion strings in 4 bytes
  out.u32(0);
  const std::string bytes = out.take();
  ByteReader in(bytes);
  try {
    in.strings("compiler_flags");
    FAIL() << "a count of 2^32-1 was accepted";
  } catch (const MessageDecodeError &error) {
    EXPECT_NE(std::string(error.what()).find("compiler_flags"), std::string::npos) << error.what();
  }
}

TEST(ByteCodec, BoolsAreZeroOrOne) {
  const std::string zero_one("\x00\x01", 2), two("\x02", 1);
  ByteReader ok(zero_one);
  EXPECT_FALSE(ok.boolean("a"));
  EXPECT_TRUE(ok.boolean("b"));
  ByteReader bad(two);
  EXPECT_THROW(bad.boolean("detected"), MessageDecodeError);
}

TEST(ByteCodec, BytesLeftOverAreRefused) {
  const std::string bytes("\x01\x00\x00\x00\x09", 5);
  ByteReader in(bytes);
  EXPECT_EQ(in.u32("a"), 1u);
  try {
    in.expect_end("task");
    FAIL() << "a trailing byte was accepted";
  } catch (const MessageDecodeError &error) {
    EXPECT_NE(std::string(error.what()).find("1 bytes left over"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace hpcreward
