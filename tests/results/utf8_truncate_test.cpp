#include "results/utf8_truncate.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(TruncateUtf8, LeavesShortTextAlone) {
  EXPECT_EQ(truncate_utf8("abc", 3), "abc");
  EXPECT_EQ(truncate_utf8("abc", 10), "abc");
  EXPECT_EQ(truncate_utf8("", 0), "");
}

TEST(TruncateUtf8, CutsAsciiAtTheLimit) {
  EXPECT_EQ(truncate_utf8("abcdef", 4), "abcd");
  EXPECT_EQ(truncate_utf8("abcdef", 0), "");
}

TEST(TruncateUtf8, NeverSplitsATwoByteCharacter) {
  // "é" is C3 A9.
  EXPECT_EQ(truncate_utf8("aé", 2), "a");
  EXPECT_EQ(truncate_utf8("aé", 3), "aé");
  EXPECT_EQ(truncate_utf8("éé", 3), "é");
}

TEST(TruncateUtf8, NeverSplitsAThreeByteCharacter) {
  // "€" is E2 82 AC: every cut inside it drops it whole.
  EXPECT_EQ(truncate_utf8("x€y", 1), "x");
  EXPECT_EQ(truncate_utf8("x€y", 2), "x");
  EXPECT_EQ(truncate_utf8("x€y", 3), "x");
  EXPECT_EQ(truncate_utf8("x€y", 4), "x€");
}

TEST(TruncateUtf8, NeverSplitsAFourByteCharacter) {
  // "😀" is F0 9F 98 80.
  EXPECT_EQ(truncate_utf8("😀😀", 7), "😀");
  EXPECT_EQ(truncate_utf8("😀😀", 5), "😀");
  EXPECT_EQ(truncate_utf8("😀😀", 3), "");
  EXPECT_EQ(truncate_utf8("😀😀", 8), "😀😀");
}

TEST(TruncateUtf8, CutsInvalidUtf8AtTheLimit) {
  // A run of continuation bytes with no lead byte is not UTF-8: no boundary to look for.
  const std::string garbage(10, '\x80');
  EXPECT_EQ(truncate_utf8(garbage, 6), garbage.substr(0, 6));
}

}  // namespace
}  // namespace hpcreward
