// The hello's JSON (the log's hosts_json): a GPU rank's device and how its candidates ran.
#include <gtest/gtest.h>

#include "common/messages.hpp"
#include "common/messages_json.hpp"

namespace hpcreward {
namespace {

TEST(RankInfoJson, KeepsTheGpuAndItsWorkQueues) {
  RankInfo info;
  info.kind = "gpu";
  info.gpu.ordinal = 1;
  info.gpu.name = "NVIDIA H200";
  info.gpu.arch = "sm_90a";
  info.gpu.connections = 4;
  const RankInfo back = nlohmann::json(info).get<RankInfo>();
  EXPECT_EQ(back.gpu.name, "NVIDIA H200");
  EXPECT_EQ(back.gpu.arch, "sm_90a");
  EXPECT_EQ(back.gpu.connections, 4);
}

// Logs written before the rank recorded its work queues still read: 0 says "not recorded".
TEST(RankInfoJson, ReadsAGpuWithoutWorkQueuesAsNotRecorded) {
  RankInfo info;
  info.kind = "gpu";
  info.gpu.name = "NVIDIA H200";
  nlohmann::json written = nlohmann::json(info);
  written["gpu"].erase("connections");
  EXPECT_EQ(written.get<RankInfo>().gpu.connections, 0);
}

}  // namespace
}  // namespace hpcreward
