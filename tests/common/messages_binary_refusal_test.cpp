// Bytes that are not a well-formed message are refused with MessageDecodeError and a message
// that says what is wrong; the decoder never reads past its buffer or reserves what a garbage
// length claims.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/messages_binary.hpp"
#include "tests/common/message_samples.hpp"

namespace hpcreward {
namespace {

std::string error_of_task(std::string_view bytes) {
  try {
    decode_task(bytes);
  } catch (const MessageDecodeError &error) {
    return error.what();
  }
  return "";
}

std::string error_of_result(std::string_view bytes) {
  try {
    decode_result(bytes);
  } catch (const MessageDecodeError &error) {
    return error.what();
  }
  return "";
}

TEST(MessagesBinaryRefusal, EveryTruncationOfATaskIsRefused) {
  const std::string bytes = encode_task(test::full_task());
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    // A copy of exactly `size` bytes, so a read past it is a real out-of-bounds read under sanitizers.
    const std::string prefix = bytes.substr(0, size);
    const std::string error = error_of_task(prefix);
    EXPECT_NE(error, "") << "a task cut to " << size << " of " << bytes.size() << " bytes decoded";
  }
}

TEST(MessagesBinaryRefusal, EveryTruncationOfAResultIsRefused) {
  const std::string bytes = encode_result(test::full_result());
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const std::string prefix = bytes.substr(0, size);
    EXPECT_NE(error_of_result(prefix), "") << "a result cut to " << size << " of " << bytes.size() << " bytes decoded";
  }
}

TEST(MessagesBinaryRefusal, TruncationNamesTheFieldAndTheShortfall) {
  const BenchTask task = test::full_task();
  const std::string bytes = encode_task(task);
  const std::string error = error_of_task(bytes.substr(0, bytes.size() - 8 - 10));  // into the source
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  EXPECT_NE(error.find("source"), std::string::npos) << error;
  EXPECT_NE(error.find("left"), std::string::npos) << error;
}

TEST(MessagesBinaryRefusal, BytesAfterTheLastFieldAreRefused) {
  const std::string task_error = error_of_task(encode_task(test::full_task()) + "x");
  EXPECT_NE(task_error.find("oversized"), std::string::npos) << task_error;
  EXPECT_NE(task_error.find("1 bytes left over"), std::string::npos) << task_error;
  const std::string result_error = error_of_result(encode_result(test::full_result()) + std::string(64, '\0'));
  EXPECT_NE(result_error.find("64 bytes left over"), std::string::npos) << result_error;
}

TEST(MessagesBinaryRefusal, ALengthThatClaimsMoreThanTheMessageIsRefused) {
  BenchTask task = test::full_task();
  task.source = "SRC";
  std::string bytes = encode_task(task);
  const std::size_t at = bytes.find("SRC") - 4;  // the source's 32-bit length
  ASSERT_EQ(bytes.substr(at, 4), std::string("\x03\0\0\0", 4));
  bytes[at + 3] = '\x7f';  // about 2 GiB
  const std::string error = error_of_task(bytes);
  EXPECT_NE(error.find("source"), std::string::npos) << error;
}

TEST(MessagesBinaryRefusal, AJsonTextIsNotABinaryMessage) {
  const std::string error = error_of_task(R"({"sequence": 1, "source": "void matmul() {}"})");
  EXPECT_NE(error.find("magic"), std::string::npos) << error;
}

TEST(MessagesBinaryRefusal, AnotherVersionSaysToRunOneBuild) {
  std::string bytes = encode_result(test::full_result());
  bytes[2] = static_cast<char>(kBinaryMessageVersion + 1);
  const std::string error = error_of_result(bytes);
  EXPECT_NE(error.find("version"), std::string::npos) << error;
  EXPECT_NE(error.find("same hpcreward build"), std::string::npos) << error;
}

TEST(MessagesBinaryRefusal, AResultIsNotATaskNorATaskAResult) {
  EXPECT_NE(error_of_task(encode_result(test::full_result())).find("expected a task"), std::string::npos);
  EXPECT_NE(error_of_result(encode_task(test::full_task())).find("expected a result"), std::string::npos);
}

TEST(MessagesBinaryRefusal, AnUnknownStatusNameIsRefused) {
  BenchResult result = test::full_result();
  result.measurement.status = Status::timeout;  // "timeout": same length as "awesome"
  std::string bytes = encode_result(result);
  bytes.replace(bytes.find("timeout"), 7, "awesome");
  const std::string error = error_of_result(bytes);
  EXPECT_NE(error.find("status"), std::string::npos) << error;
  EXPECT_NE(error.find("\"awesome\""), std::string::npos) << error;
}

TEST(MessagesBinaryRefusal, AnUnknownPrecisionIsRefused) {
  std::string bytes = encode_task(test::full_task());
  bytes.replace(bytes.find("f32"), 3, "f99");
  EXPECT_NE(error_of_task(bytes).find("precision"), std::string::npos);
}

// Random bytes behind a valid header, and random single-byte corruptions of valid messages:
// each either decodes or is refused with MessageDecodeError; nothing else escapes.
TEST(MessagesBinaryRefusal, GarbageIsRefusedOrDecodedNeverAnythingElse) {
  std::mt19937_64 random(20261124);
  const std::string task = encode_task(test::full_task());
  const std::string result = encode_result(test::full_result());
  int refused = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string bytes;
    if (round % 2 == 0) {
      bytes = std::string(round % 4 == 0 ? "HR\x01T" : "HR\x01R", 4);
      const std::size_t size = random() % 200;
      for (std::size_t i = 0; i < size; ++i) bytes += static_cast<char>(random());
    } else {
      bytes = round % 4 == 1 ? task : result;
      bytes[random() % bytes.size()] = static_cast<char>(random());
    }
    try {
      if (bytes[3] == 'T')
        decode_task(bytes);
      else
        decode_result(bytes);
    } catch (const MessageDecodeError &) {
      ++refused;
    }
  }
  EXPECT_GE(refused, 2000);  // all the random tails at least
}

}  // namespace
}  // namespace hpcreward
