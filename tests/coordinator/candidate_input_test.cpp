#include "coordinator/input/candidate_input.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

CandidateDefaults defaults(std::string problem, std::string stage) {
  CandidateDefaults defaults;
  defaults.problem = std::move(problem);
  defaults.stage = std::move(stage);
  defaults.known_stages = {{"o0"}, {"o3"}, {"open"}, {"cuda-naive", Language::cuda}, {"cuda-open", Language::cuda}};
  defaults.batch_id = "batch-a";
  return defaults;
}
const CandidateDefaults kDefaults = defaults("dgemm-256", "o3");
constexpr const char *kSource = "void matmul(int m,int n,int k,const double*A,const double*B,double*C){}";

PreparedCandidate prepare(const std::string &line) { return prepare_candidate(line, 7, kDefaults); }

TEST(PrepareCandidate, SourceLineWithDefaults) {
  auto candidate = prepare(std::string(R"({"id":"c1","source":")") + kSource + "\"}");
  ASSERT_TRUE(candidate.verdict.ok()) << candidate.verdict.reason;
  EXPECT_EQ(candidate.id, "c1");
  EXPECT_EQ(candidate.problem, "dgemm-256");
  EXPECT_EQ(candidate.stage, "o3");
  EXPECT_EQ(candidate.batch_id, "batch-a");
  EXPECT_EQ(candidate.code, kSource);
}

TEST(PrepareCandidate, LineFieldsWinOverDefaults) {
  auto candidate = prepare(std::string(R"({"id":"c1","problem":"sgemm-512","stage":"o0","batch_id":"b9","source":")") +
                           kSource + "\"}");
  ASSERT_TRUE(candidate.verdict.ok());
  EXPECT_EQ(candidate.problem, "sgemm-512");
  EXPECT_EQ(candidate.stage, "o0");
  EXPECT_EQ(candidate.batch_id, "b9");
}

TEST(PrepareCandidate, AnEpisodeAndItsTurnAreLabels) {
  auto turn = prepare(std::string(R"({"id":"c1","episode":"ep-3","turn":2,"source":")") + kSource + "\"}");
  ASSERT_TRUE(turn.verdict.ok()) << turn.verdict.reason;
  EXPECT_EQ(turn.episode, "ep-3");
  EXPECT_EQ(turn.turn, 2);
  auto plain = prepare(std::string(R"({"id":"c1","source":")") + kSource + "\"}");
  EXPECT_EQ(plain.episode, "");
  EXPECT_EQ(plain.turn, 0);
  for (const char *bad : {R"("episode":"ep","turn":0)", R"("episode":"ep","turn":1.5)", R"("episode":"ep","turn":"2")",
                          R"("turn":1)", R"("episode":7)"}) {
    auto refused = prepare(std::string(R"({"id":"c1",)") + bad + R"(,"source":")" + kSource + "\"}");
    EXPECT_EQ(refused.verdict.status, Status::format_error) << bad;
    const std::string &reason = refused.verdict.reason;
    EXPECT_TRUE(reason.find("\"turn\"") != std::string::npos || reason.find("\"episode\"") != std::string::npos)
        << bad << ": " << reason;
  }
  auto long_episode = prepare(std::string(R"({"id":"c1","episode":")") + std::string(65, 'e') + R"(","source":")" +
                              kSource + "\"}");
  EXPECT_NE(long_episode.verdict.reason.find("\"episode\" is 65 bytes"), std::string::npos) << long_episode.verdict.reason;
}

TEST(PrepareCandidate, CompletionIsExtracted) {
  auto candidate = prepare(std::string(R"({"id":"c1","completion":"Sure!\n```c\n)") + kSource + "\\n```\"}");
  ASSERT_TRUE(candidate.verdict.ok()) << candidate.verdict.reason;
  EXPECT_EQ(candidate.code, std::string(kSource) + "\n");
}

TEST(PrepareCandidate, AnAnswerAsModelsWriteItKeepsWhichBlockWasJudged) {
  auto thought = prepare(std::string(R"({"id":"c1","completion":"<think>\n```c\nvoid matmul(){}\n```\n</think>\n```c\n)") +
                         kSource + R"(\n```\n```sh\ngcc -shared -o libmatmul.so matmul.c\n```"})");
  ASSERT_TRUE(thought.verdict.ok()) << thought.verdict.reason;
  EXPECT_EQ(thought.code, std::string(kSource) + "\n");
  EXPECT_EQ(thought.judged, "block 1 of 2 (```c, lines 6-8), the one that defines matmul; not read: the reasoning "
                            "(think, lines 1-5)");
  // A fenced source (a tool call's argument) is its block; a plain one has no note.
  auto fenced = prepare(std::string(R"({"id":"c2","source":"```c\n)") + kSource + R"(\n```"})");
  ASSERT_TRUE(fenced.verdict.ok()) << fenced.verdict.reason;
  EXPECT_EQ(fenced.code, std::string(kSource) + "\n");
  EXPECT_EQ(fenced.judged, "block 1 of 1 (```c, lines 1-3), the one that defines matmul");
  EXPECT_EQ(prepare(std::string(R"({"id":"c3","source":")") + kSource + "\"}").judged, "");
  // A CUDA problem's reasons name its fence.
  auto cuda = prepare(R"({"id":"c4","problem":"cuda-sgemm-1024","stage":"cuda-naive","completion":"Tile it."})");
  EXPECT_EQ(cuda.verdict.status, Status::format_error);
  EXPECT_NE(cuda.verdict.reason.find("```cuda ... ```"), std::string::npos) << cuda.verdict.reason;
}

void expect_format_error(const std::string &line, const std::string &reason_part,
                         const std::string &id = "line-7") {
  auto candidate = prepare(line);
  EXPECT_EQ(candidate.verdict.status, Status::format_error) << line;
  EXPECT_NE(candidate.verdict.reason.find(reason_part), std::string::npos) << candidate.verdict.reason;
  EXPECT_EQ(candidate.id, id);
  EXPECT_TRUE(candidate.code.empty());
}

TEST(PrepareCandidate, MalformedLinesAreFormatErrorsWithReasons) {
  expect_format_error("{not json", "line 7 is not valid JSON");
  expect_format_error("[1,2]", "not an object");
  expect_format_error(R"({"source":"void matmul(){}"})", "missing \"id\"");
  expect_format_error(R"({"id":5,"source":"void matmul(){}"})", "\"id\" must be a string");
  expect_format_error(R"({"id":")" + std::string(65, 'x') + R"(","source":"void matmul(){}"})", "limit is 64");
  expect_format_error(R"({"id":"c","problem":"zgemm-3","source":"void matmul(){}"})", "unknown problem \"zgemm-3\"", "c");
  expect_format_error(R"({"id":"c","stage":"turbo","source":"void matmul(){}"})", "unknown stage \"turbo\"", "c");
  expect_format_error(R"({"id":"c"})", "exactly one of", "c");
  expect_format_error(R"({"id":"c","source":"void matmul(){}","completion":"x"})", "exactly one of", "c");
  expect_format_error(R"({"id":"c","completion":"no code here"})", "no fenced code block", "c");
  expect_format_error(R"({"id":"c","source":""})", "source is empty", "c");
  expect_format_error(R"({"id":"c","source":"int main(){}"})", "no matmul entry point", "c");
}

TEST(PrepareCandidate, NoStageLeavesItToTheLadder) {
  auto candidate = prepare_candidate(R"({"id":"c","source":"void matmul(){}"})", 1, defaults("dgemm-256", ""));
  ASSERT_TRUE(candidate.verdict.ok()) << candidate.verdict.reason;
  EXPECT_EQ(candidate.stage, "");
  EXPECT_FALSE(candidate.stage_named);
  auto named = prepare_candidate(R"({"id":"c","stage":"open","source":"void matmul(){}"})", 1,
                                 defaults("dgemm-256", ""));
  EXPECT_EQ(named.stage, "open");
  EXPECT_TRUE(named.stage_named);
}

TEST(PrepareCandidate, StageMustBeOfTheProblemsLanguage) {
  const CandidateDefaults no_stage = defaults("dgemm-256", "");
  auto cuda = prepare_candidate(R"({"id":"g","problem":"cuda-sgemm-4096","stage":"cuda-naive","source":"void matmul(){}"})",
                                1, no_stage);
  ASSERT_TRUE(cuda.verdict.ok()) << cuda.verdict.reason;
  EXPECT_EQ(cuda.stage, "cuda-naive");

  auto c_stage = prepare_candidate(R"({"id":"g","problem":"cuda-sgemm-4096","stage":"o3","source":"void matmul(){}"})",
                                   1, no_stage);
  EXPECT_EQ(c_stage.verdict.status, Status::format_error);
  EXPECT_EQ(c_stage.verdict.reason,
            "stage \"o3\" is a C stage and problem \"cuda-sgemm-4096\" is a CUDA problem: name a CUDA stage "
            "(cuda-naive, cuda-open), or none for the problem's current stage");
  EXPECT_TRUE(c_stage.code.empty());

  auto cuda_stage = prepare_candidate(R"({"id":"c","stage":"cuda-open","source":"void matmul(){}"})", 1, no_stage);
  EXPECT_EQ(cuda_stage.verdict.status, Status::format_error);
  EXPECT_EQ(cuda_stage.verdict.reason,
            "stage \"cuda-open\" is a CUDA stage and problem \"dgemm-256\" is a C problem: name a C stage "
            "(o0, o3, open), or none for the problem's current stage");

  // --stage applies to every line without one: a CUDA line under a C default is refused the same way.
  auto defaulted = prepare(R"({"id":"g","problem":"cuda-hgemm-1024","source":"void matmul(){}"})");
  EXPECT_EQ(defaulted.verdict.status, Status::format_error);
  EXPECT_NE(defaulted.verdict.reason.find("stage \"o3\" is a C stage"), std::string::npos);
}

TEST(PrepareCandidate, MissingProblemWithoutDefault) {
  CandidateDefaults no_problem = defaults("", "o3");
  auto candidate = prepare_candidate(R"({"id":"c","source":"void matmul(){}"})", 1, no_problem);
  EXPECT_EQ(candidate.verdict.status, Status::format_error);
  EXPECT_NE(candidate.verdict.reason.find("missing \"problem\""), std::string::npos);
}

}  // namespace
}  // namespace hpcreward
