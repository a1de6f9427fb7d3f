#include "coordinator/input/code_extraction.hpp"

#include <gtest/gtest.h>

#include "coordinator/input/code_shape.hpp"

namespace hpcreward {
namespace {

std::variant<ExtractedCode, Verdict> extract(std::string_view completion, Language language = Language::c) {
  return extract_from_completion(completion, language);
}

std::string code_of(std::string_view completion, Language language = Language::c) {
  auto result = extract(completion, language);
  if (auto *verdict = std::get_if<Verdict>(&result)) return "ERROR: " + verdict->reason;
  return std::get<ExtractedCode>(result).code;
}

std::string judged_of(std::string_view completion) {
  auto result = extract(completion);
  if (auto *verdict = std::get_if<Verdict>(&result)) return "ERROR: " + verdict->reason;
  return std::get<ExtractedCode>(result).judged;
}

// The reason of a format_error, or "" when the completion was accepted.
std::string error_of(std::string_view completion) {
  auto result = extract(completion);
  if (auto *verdict = std::get_if<Verdict>(&result)) {
    EXPECT_EQ(verdict->status, Status::format_error);
    return verdict->reason;
  }
  return "";
}

bool contains(const std::string &text, std::string_view part) { return text.find(part) != std::string::npos; }

constexpr std::string_view kKernel =
    "#include <stddef.h>\n"
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  for (int i = 0; i < m; ++i)\n"
    "    for (int j = 0; j < n; ++j) {\n"
    "      double s = 0;\n"
    "      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];\n"
    "      C[i * n + j] = s;\n"
    "    }\n"
    "}\n";

std::string fenced(std::string_view code, std::string_view tag = "c") {
  return "```" + std::string(tag) + "\n" + std::string(code) + "```\n";
}

TEST(ExtractFromCompletion, TakesTheFencedBlock) {
  EXPECT_EQ(code_of("Here it is:\n```c\nvoid matmul(){}\n```\nDone."), "void matmul(){}\n");
  EXPECT_EQ(judged_of("Here it is:\n```c\nvoid matmul(){}\n```\nDone."),
            "block 1 of 1 (```c, lines 2-4), the one that defines matmul");
}

TEST(ExtractFromCompletion, AcceptsTildeFencesAndNoLanguageTag) {
  EXPECT_EQ(code_of("~~~\nvoid matmul(){}\n~~~"), "void matmul(){}\n");
}

TEST(ExtractFromCompletion, UnclosedBlockRunsToTheEnd) {
  EXPECT_EQ(code_of("```c\nvoid matmul(){}"), "void matmul(){}");
}

TEST(ExtractFromCompletion, AFenceLineWithATagInsideABlockIsCodeNotItsEnd) {
  // CommonMark: only a bare fence at least as long closes the block.
  EXPECT_EQ(code_of("````markdown\n```c\nvoid matmul(){}\n```\n````"), "```c\nvoid matmul(){}\n```\n");
}

TEST(ExtractFromCompletion, ThinkDraftThenFinalKernel) {
  const std::string answer = "<think>\nA first try:\n" + fenced("void matmul(int m){ /* slow */ }\n") +
                             "Better to block it.\n</think>\n\nHere is the kernel:\n" + fenced(kKernel);
  EXPECT_EQ(code_of(answer), kKernel);
  EXPECT_EQ(judged_of(answer),
            "block 1 of 1 (```c, lines 10-20), the one that defines matmul; not read: the reasoning (think, lines 1-7)");
  // The feedback names the tag without its brackets: a later text holding it opens no section.
  EXPECT_EQ(code_of("Last time: " + judged_of(answer) + "\n" + fenced(kKernel)), kKernel);
}

TEST(ExtractFromCompletion, ReasoningOpenedByTheChatTemplate) {
  // Qwen3 and DeepSeek-R1 templates put <think> in the prompt: the completion starts inside it.
  const std::string answer = "Let me draft it.\n" + fenced("void matmul(){ /* draft */ }\n") + "</think>\n" +
                             fenced(kKernel);
  EXPECT_EQ(code_of(answer), kKernel);
  EXPECT_TRUE(contains(judged_of(answer), "(think, lines 1-5)")) << judged_of(answer);
}

TEST(ExtractFromCompletion, EveryUsualReasoningTagAnyCase) {
  for (const char *tags : {"<think>|</think>", "<THINK>|</Think>", "<thinking>|</thinking>",
                           "<reasoning>|</reasoning>", "<reflection>|</reflection>", "<scratchpad>|</scratchpad>",
                           "<|begin_of_thought|>|<|end_of_thought|>"}) {
    const std::string pair = tags;
    const std::size_t bar = pair.find('|', 1);
    const std::string answer = pair.substr(0, bar) + "draft:\n" + fenced("void matmul(){}\n") + pair.substr(bar + 1) +
                               "\n" + fenced(kKernel);
    EXPECT_EQ(code_of(answer), kKernel) << tags;
  }
}

TEST(ExtractFromCompletion, TagsInsideACodeBlockAreCode) {
  // A comment that mentions a tag must not cut the block the model gave as its answer.
  const std::string code = "// no <think> here\n" + std::string(kKernel) + "// nor </think>\n";
  EXPECT_EQ(code_of("Answer:\n" + fenced(code)), code);
}

TEST(ExtractFromCompletion, ReasoningThatNeverClosesIsNotTheAnswer) {
  const std::string reason = error_of("<think>\nI will write\n" + fenced(kKernel));
  EXPECT_TRUE(contains(reason, "only reasoning")) << reason;
  EXPECT_TRUE(contains(reason, "think, lines 1-13, never closed")) << reason;
}

TEST(ExtractFromCompletion, BuildCommandBesideTheKernel) {
  const std::string answer = "The kernel:\n" + fenced(kKernel) + "Build it with:\n" +
                             fenced("gcc -O3 -shared -fPIC -o libmatmul.so matmul.c\n", "bash");
  EXPECT_EQ(code_of(answer), kKernel);
  EXPECT_EQ(judged_of(answer), "block 1 of 2 (```c, lines 2-12), the one that defines matmul");
}

TEST(ExtractFromCompletion, UsageSnippetThatCallsTheKernel) {
  const std::string usage = "double *A = malloc(n * n * sizeof *A);\nmatmul(n, n, n, A, B, C);\n";
  const std::string harness = "int main(void) {\n  matmul(256, 256, 256, A, B, C);\n  return 0;\n}\n";
  const std::string prototype = "void matmul(int m, int n, int k, const double *A, const double *B, double *C);\n";
  const std::string answer = fenced(prototype) + "Kernel:\n" + fenced(kKernel) + "Use it:\n" + fenced(usage) +
                             "Test:\n" + fenced(harness);
  EXPECT_EQ(code_of(answer), kKernel);
  EXPECT_EQ(judged_of(answer), "block 2 of 4 (```c, lines 5-15), the one that defines matmul");
}

TEST(ExtractFromCompletion, CudaKernelWithAHostTestHarness) {
  const std::string kernel =
      "#include <cuda_runtime.h>\n"
      "__global__ void tile(int m, int n, int k, const float *A, const float *B, float *C) { /* ... */ }\n"
      "extern \"C\" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {\n"
      "  tile<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(m, n, k, A, B, C);\n"
      "}\n";
  const std::string harness =
      "int main() {\n  float *A, *B, *C;\n  cudaMalloc(&A, 1 << 20);\n  matmul(256, 256, 256, A, B, C);\n"
      "  cudaDeviceSynchronize();\n}\n";
  const std::string answer = "```cuda\n" + kernel + "```\nTo test:\n```cpp\n" + harness + "```\n";
  EXPECT_EQ(code_of(answer, Language::cuda), kernel);
}

TEST(ExtractFromCompletion, CudaLinkageBlockAndACppAnswer) {
  const std::string linkage = "extern \"C\" {\nvoid matmul(int m, int n, int k, const float *A, const float *B, float *C) {\n}\n}\n";
  EXPECT_EQ(code_of(fenced(linkage, "cuda"), Language::cuda), linkage);
  const std::string cpp =
      "#include <vector>\nnamespace {\ntemplate <int T> void tile() {}\n}\n"
      "extern \"C\" void matmul(int m, int n, int k, const double *A, const double *B, double *C) noexcept {\n"
      "  std::vector<double> scratch(k);\n}\n";
  EXPECT_EQ(code_of("C++:\n" + fenced(cpp, "cpp") + fenced("g++ -O3 -shared x.cpp\n", "sh")), cpp);
}

TEST(ExtractFromCompletion, CodeAloneWithoutAFence) {
  EXPECT_EQ(code_of(kKernel), kKernel);
  EXPECT_EQ(judged_of(kKernel), "the whole answer as code (no fenced block, lines 1-9)");
  const std::string commented = "/* blocked i-k-j */\n" + std::string(kKernel);
  EXPECT_EQ(code_of(commented), commented);
  // After a reasoning section: the reasoning's lines stay blank, so the compiler's line
  // numbers are the completion's.
  const std::string after = "<think>\nplan\n</think>\n" + std::string(kKernel);
  EXPECT_EQ(code_of(after), "\n\n\n" + std::string(kKernel));
  EXPECT_TRUE(contains(judged_of(after), "lines 4-12")) << judged_of(after);
}

TEST(ExtractFromCompletion, ProseWithoutAFenceIsAFormatError) {
  for (const std::string &answer : {std::string("Here is the kernel:\n") + std::string(kKernel),
                                   std::string(kKernel) + "This blocks the loops for the cache.\n",
                                   std::string(kKernel) + "Hope this helps!\n",
                                   "# Optimized matmul\n" + std::string(kKernel),
                                   std::string(kKernel) + "Here's why it is fast\n",
                                   "Use `matmul` like this: " + std::string(kKernel),
                                   std::string("void matmul(){} but no fence")}) {
    const std::string reason = error_of(answer);
    EXPECT_TRUE(contains(reason, "no fenced code block")) << answer << "\n-> " << reason;
    EXPECT_TRUE(contains(reason, "is not code")) << reason;
    EXPECT_TRUE(contains(reason, "```c ... ```")) << reason;
  }
  EXPECT_TRUE(contains(error_of("I could not write it."), "is not code")) << error_of("I could not write it.");
}

TEST(ExtractFromCompletion, CodeAloneMustDefineMatmulAndBalance) {
  EXPECT_TRUE(contains(error_of("int main(void) { return 0; }\n"), "defines no matmul"));
  EXPECT_TRUE(contains(error_of("void matmul(int m) {\n  if (m) {\n}\n"), "braces"));
  EXPECT_TRUE(contains(error_of("void matmul(int m) {}\n/* unfinished\n"), "never ends"));
}

TEST(ExtractFromCompletion, TwoDefinitionsAreAFormatErrorNamingBoth) {
  const std::string answer = "First:\n" + fenced(kKernel) + "Or faster:\n" + fenced(kKernel, "cpp");
  const std::string reason = error_of(answer);
  EXPECT_TRUE(contains(reason, "2 fenced code blocks define matmul")) << reason;
  EXPECT_TRUE(contains(reason, "block 1 (```c, lines 2-12) and block 2 (```cpp, lines 14-24)")) << reason;
}

TEST(ExtractFromCompletion, AHiddenSecondDefinitionIsStillASecondDefinition) {
  // A block the markdown hides, or one tagged as text, is still a block of the answer.
  const std::string hidden = fenced(kKernel) + "<!--\n" + fenced("void matmul(){ /* other */ }\n", "text") + "-->\n";
  EXPECT_TRUE(contains(error_of(hidden), "2 fenced code blocks define matmul")) << error_of(hidden);
  // A later stray closing tag does not turn the blocks before it into reasoning.
  const std::string stray = "<think>x</think>\n" + fenced(kKernel) + "</think>\n" + fenced(kKernel);
  EXPECT_TRUE(contains(error_of(stray), "2 fenced code blocks define matmul")) << error_of(stray);
}

TEST(ExtractFromCompletion, BlocksThatOnlyUseMatmulAreNamed) {
  const std::string reason = error_of("```c\nint main(){ matmul(1,1,1,0,0,0); }\n```\n```sh\ngcc matmul.c\n```");
  EXPECT_TRUE(contains(reason, "no fenced code block defines matmul")) << reason;
  EXPECT_TRUE(contains(reason, "block 1 (```c, lines 1-3) and block 2 (```sh, lines 4-6) use it without defining it")) << reason;
  EXPECT_TRUE(contains(error_of("```c\nint main(){}\n```"), "defines matmul"));
}

TEST(CodeFromSource, AFencedToolArgumentIsItsBlock) {
  auto fenced_source = code_from_source("```c\n" + std::string(kKernel) + "```\n", Language::c);
  ASSERT_TRUE(std::holds_alternative<ExtractedCode>(fenced_source));
  EXPECT_EQ(std::get<ExtractedCode>(fenced_source).code, kKernel);
  EXPECT_EQ(std::get<ExtractedCode>(fenced_source).judged, "block 1 of 1 (```c, lines 1-11), the one that defines matmul");
  auto plain = code_from_source(kKernel, Language::c);
  EXPECT_EQ(std::get<ExtractedCode>(plain).code, kKernel);
  EXPECT_EQ(std::get<ExtractedCode>(plain).judged, "");
  // A fence inside a comment is the code's own: the source is taken as it is.
  const std::string documented = "/* usage:\n```\nmatmul(m, n, k, A, B, C);\n```\n*/\n" + std::string(kKernel);
  EXPECT_EQ(std::get<ExtractedCode>(code_from_source(documented, Language::c)).code, documented);
  auto twice = code_from_source("\n```cuda\nvoid matmul(){}\n```\n```cuda\nvoid matmul(){}\n```\n", Language::cuda);
  ASSERT_TRUE(std::holds_alternative<Verdict>(twice));
  EXPECT_TRUE(contains(std::get<Verdict>(twice).reason, "2 fenced code blocks define matmul"));
}

TEST(CodeShape, DefinitionsNotCallsPrototypesCommentsOrMembers) {
  EXPECT_EQ(read_code_shape(kKernel).definition_lines, std::vector<int>{2});
  for (const char *not_a_definition :
       {"void matmul(int m);", "int main(){ matmul(1); }", "// void matmul(){}", "/* void matmul(){} */",
        "const char *s = \"void matmul(){}\";", "#define X void matmul(){}", "struct S { void matmul(){} };",
        "void S::matmul(){}", "int x = matmul(2) ;", "const char *r = R\"x(void matmul(){})x\";"}) {
    EXPECT_TRUE(read_code_shape(not_a_definition).definition_lines.empty()) << not_a_definition;
  }
  for (const char *definition :
       {"static void matmul(int m)\n{\n}", "extern \"C\" __launch_bounds__(256) void matmul(int m) {}",
        "void matmul(int m) __attribute__((hot)) {}", "namespace hpc { }\nvoid matmul(int m) {}",
        "auto matmul(int m) -> void {}"}) {
    EXPECT_EQ(read_code_shape(definition).definition_lines.size(), 1u) << definition;
  }
  EXPECT_TRUE(read_code_shape("int matmul_ref(int m) {}").definition_lines.empty());
  // Many unclosed calls: each is looked at within a bound, none is a definition.
  std::string calls;
  for (int i = 0; i < 20000; ++i) calls += "matmul(";
  EXPECT_TRUE(read_code_shape(calls).definition_lines.empty());
  EXPECT_FALSE(read_code_shape("// matmul\n").mentions_entry);
}

TEST(CodeShape, CodeAloneOrNot) {
  EXPECT_EQ(read_code_shape(kKernel).not_code, "");
  EXPECT_EQ(read_code_shape("#pragma omp parallel for\nint x = 1'000;\nstatic const unsigned long long int n = 0;\n"
                            "typedef struct node node_t;\nconst char c = '\\'';\n")
                .not_code,
            "");
  EXPECT_TRUE(contains(read_code_shape("int x;\nThis is prose\n").not_code, "line 2 (\"This is prose\")"));
  EXPECT_EQ(read_code_shape("int x; // fine.\nint y;\n").not_code, "");
  EXPECT_EQ(read_code_shape("int x; // a comment. With `ticks` and words in a row\n").not_code, "");
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
