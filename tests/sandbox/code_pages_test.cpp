// The load-time check that no page is writable and executable when the filter goes on.
#include "bench_node/sandbox/code_pages.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(CodePages, FindsTheMappingThatIsWritableAndExecutable) {
  const std::string maps =
      "55d4a000-55d4b000 r--p 00000000 08:01 1234 /usr/bin/x\n"
      "55d4b000-55d4c000 r-xp 00001000 08:01 1234 /usr/bin/x\n"
      "7ffd1000-7ffd2000 rwxp 00000000 00:00 0 [stack]\n"
      "7ffd3000-7ffd4000 rw-p 00000000 00:00 0\n";
  EXPECT_EQ(first_writable_code_mapping(maps), "7ffd1000-7ffd2000 rwxp 00000000 00:00 0 [stack]");
}

TEST(CodePages, CodeAndDataApartIsFine) {
  EXPECT_EQ(first_writable_code_mapping("1000-2000 r-xp 0 0:0 0 /lib/x\n2000-3000 rw-p 0 0:0 0\n3000-4000 ---p 0 0:0 0\n"),
            "");
  EXPECT_EQ(first_writable_code_mapping(""), "");
}

TEST(CodePages, ThisTestProcessHasNone) { EXPECT_EQ(writable_code_mapping_of_this_process(), ""); }

}  // namespace
}  // namespace hpcreward
