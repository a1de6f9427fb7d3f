#include "coordinator/input/code_extraction.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

std::string code_of(std::string_view completion) {
  auto result = extract_from_completion(completion);
  if (auto *verdict = std::get_if<Verdict>(&result)) return "ERROR: " + verdict->reason;
  return std::get<std::string>(result);
}

TEST(ExtractFromCompletion, TakesTheFencedBlock) {
  EXPECT_EQ(code_of("Here it is:\n```c\nvoid matmul(){}\n```\nDone."), "void matmul(){}\n");
}

TEST(ExtractFromCompletion, AcceptsTildeFencesAndNoLanguageTag) {
  EXPECT_EQ(code_of("~~~\nvoid matmul(){}\n~~~"), "void matmul(){}\n");
}

TEST(ExtractFromCompletion, UnclosedBlockRunsToTheEnd) {
  EXPECT_EQ(code_of("```c\nvoid matmul(){}"), "void matmul(){}");
}

TEST(ExtractFromCompletion, PicksTheOnlyBlockThatMentionsMatmul) {
  EXPECT_EQ(code_of("```sh\ngcc -O3 x.c\n```\n```c\nvoid matmul(){}\n```"), "void matmul(){}\n");
}

TEST(ExtractFromCompletion, NoBlockIsAFormatError) {
  auto result = extract_from_completion("void matmul(){} but no fence");
  ASSERT_TRUE(std::holds_alternative<Verdict>(result));
  EXPECT_EQ(std::get<Verdict>(result).status, Status::format_error);
  EXPECT_NE(std::get<Verdict>(result).reason.find("no fenced code block"), std::string::npos);
}

TEST(ExtractFromCompletion, SeveralBlocksWithMatmulAreAFormatError) {
  auto result = extract_from_completion("```c\nvoid matmul(){}\n```\n```c\nvoid matmul(){ }\n```");
  ASSERT_TRUE(std::holds_alternative<Verdict>(result));
  EXPECT_NE(std::get<Verdict>(result).reason.find("2 fenced code blocks"), std::string::npos);
}

TEST(ExtractFromCompletion, BlockWithoutMatmulIsAFormatError) {
  auto result = extract_from_completion("```c\nint main(){}\n```");
  ASSERT_TRUE(std::holds_alternative<Verdict>(result));
  EXPECT_NE(std::get<Verdict>(result).reason.find("defines matmul"), std::string::npos);
}

TEST(CheckSourceText, AcceptsPlainC) {
  EXPECT_TRUE(check_source_text("void matmul(int m){}").ok());
}

TEST(CheckSourceText, RejectsEmptyBinaryHugeAndEntryless) {
  EXPECT_EQ(check_source_text(" \n\t").reason, "source is empty");
  EXPECT_NE(check_source_text(std::string("void matmul(){}\0x", 17)).reason.find("NUL"), std::string::npos);
  EXPECT_NE(check_source_text("void matmul(){} \xff\xfe").reason.find("UTF-8"), std::string::npos);
  EXPECT_NE(check_source_text("void matmul(){}" + std::string(100, ' '), 50).reason.find("limit is 50"),
            std::string::npos);
  EXPECT_EQ(check_source_text("void my_matmul(){}").reason, "source has no matmul entry point");
}

TEST(CheckSourceText, AcceptsMultibyteUtf8) {
  EXPECT_TRUE(check_source_text("// résumé: 行列\nvoid matmul(){}").ok());
}

}  // namespace
}  // namespace hpcreward
