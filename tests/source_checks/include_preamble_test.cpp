// The preamble a precompiled header may stand for: only files whose includes all come first.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/directives.hpp"

namespace hpcreward::source_checks {
namespace {

std::optional<std::string> preamble(const std::string &source) {
  return include_preamble(lex_c(source));
}

TEST(IncludePreamble, LeadingIncludesFormThePreamble) {
  EXPECT_EQ(*preamble("// kernel\n#include <immintrin.h>\n/* x */\n#include <stdlib.h>\nint x;\n"),
            "#include <immintrin.h>\n#include <stdlib.h>\n");
  EXPECT_EQ(*preamble("#include <math.h>\n#include <math.h>\n"),
            "#include <math.h>\n#include <math.h>\n");
}

TEST(IncludePreamble, NoPreambleWhenAnythingComesFirst) {
  EXPECT_FALSE(preamble("int x;\n"));
  EXPECT_FALSE(preamble("#define NDEBUG\n#include <stdlib.h>\n"));
  EXPECT_FALSE(preamble("#include <stdlib.h>\nint x;\n#include <math.h>\n"));
  EXPECT_FALSE(preamble("#ifdef X\n#include <stdlib.h>\n#endif\n"));
}

}  // namespace
}  // namespace hpcreward::source_checks
