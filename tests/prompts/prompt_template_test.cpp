#include "prompts/prompt_template.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace hpcreward::prompts {
namespace {

TEST(PromptTemplate, PlacesEveryFieldWhereItsPlaceholderIs) {
  const PromptTemplate t = PromptTemplate::parse("Write {{problem}} in stage {{stage}}; {{problem}} again.", "t");
  EXPECT_EQ(t.render({{"problem", "dgemm-256"}, {"stage", "o3"}}), "Write dgemm-256 in stage o3; dgemm-256 again.");
}

TEST(PromptTemplate, BracesThatAreNoPlaceholderStayText) {
  const PromptTemplate t = PromptTemplate::parse("double C[2][2] = {{0}}; {{ stage }} {{}} {{stage", "t");
  EXPECT_EQ(t.render({}), "double C[2][2] = {{0}}; {{ stage }} {{}} {{stage");
}

TEST(PromptTemplate, AnUnknownFieldIsRefusedWithItsLineAndTheFieldsThereAre) {
  try {
    PromptTemplate::parse("first line\nsecond {{stage}} {{stgae}}\n", "my_prompt.txt");
    FAIL() << "parsed";
  } catch (const std::invalid_argument &error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("my_prompt.txt:2: no prompt field {{stgae}}"), std::string::npos) << message;
    EXPECT_NE(message.find("stage, compiler_flags"), std::string::npos) << message;
  }
}

TEST(PromptTemplate, AMissingFileIsNamed) {
  try {
    PromptTemplate::load("/nonexistent/prompt.txt");
    FAIL() << "loaded";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/prompt.txt"), std::string::npos);
  }
}

TEST(PromptTemplate, TheBuiltInTemplateParses) {
  const PromptTemplate t = PromptTemplate::builtin();
  EXPECT_NE(t.text().find("{{signature}}"), std::string::npos);
  EXPECT_NE(t.source().find("default_prompt.txt"), std::string::npos);
}

}  // namespace
}  // namespace hpcreward::prompts
