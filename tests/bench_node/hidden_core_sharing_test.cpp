// Recognizing a virtual machine, whose topology hides which vCPUs share a host core.
#include "bench_node/rank/hidden_core_sharing.hpp"

#include <gtest/gtest.h>

#include "common/messages_json.hpp"

namespace hpcreward {
namespace {

const char *kBareMetalCpuinfo = "processor\t: 0\nflags\t\t: fpu vme sse2 ht avx2 avx512f\n\n";
const char *kGuestCpuinfo = "processor\t: 0\nflags\t\t: fpu vme sse2 ht hypervisor avx2\n\n";

TEST(HiddenCoreSharing, TheHypervisorFlagSaysSo) {
  EXPECT_NE(hidden_core_sharing_reason(kGuestCpuinfo, "", ""), "");
  EXPECT_EQ(hidden_core_sharing_reason(kBareMetalCpuinfo, "", ""), "");
  EXPECT_EQ(hidden_core_sharing_reason("flags\t: hypervisorish\nmodel name\t: hypervisor\n", "", ""), "");
}

TEST(HiddenCoreSharing, DmiNamesOfVirtualMachinesSaySo) {
  EXPECT_NE(hidden_core_sharing_reason(kBareMetalCpuinfo, "QEMU", "Standard PC (Q35 + ICH9, 2009)"), "");
  EXPECT_NE(hidden_core_sharing_reason("", "Amazon EC2", "c6i.4xlarge"), "");
  EXPECT_NE(hidden_core_sharing_reason("", "Microsoft Corporation", "Virtual Machine"), "");
  EXPECT_EQ(hidden_core_sharing_reason("", "Microsoft Corporation", "Surface Laptop"), "");
  EXPECT_EQ(hidden_core_sharing_reason(kBareMetalCpuinfo, "Dell Inc.", "PowerEdge R750"), "");
}

TEST(HiddenCoreSharing, TheRankTellsTheCoordinator) {
  RankInfo info;
  info.host = "vm01";
  info.core_sharing_hidden = "the CPU flags name a hypervisor";
  const RankInfo back = nlohmann::json(info).get<RankInfo>();
  EXPECT_EQ(back.core_sharing_hidden, info.core_sharing_hidden);
  nlohmann::json older = nlohmann::json(info);
  older.erase("core_sharing_hidden");  // a rank built before the field
  EXPECT_EQ(older.get<RankInfo>().core_sharing_hidden, "");
}

}  // namespace
}  // namespace hpcreward
