// Which findings keep a drain until the next boot (needs_reboot.h), from verdicts and from reasons.
#include <gtest/gtest.h>

#include "gpu/health/recovery_action.h"
#include "node_check/needs_reboot.h"

namespace labcheck::node_check {
namespace {

NodeVerdict With(Finding f) {
  NodeVerdict v;
  v.state = NodeState::Unhealthy;
  v.findings.push_back(std::move(f));
  return v;
}

TEST(NeedsReboot, FromTodaysFindings) {
  EXPECT_TRUE(NeedsReboot(With({-1, "gpu_off_bus", T("x", "GPU 0000:9a:00.0 on the PCI bus but not in the driver")})));
  EXPECT_TRUE(NeedsReboot(With({-1, "nvswitch_sxid", T("x", "NVSwitch 0000:07:00.0 SXid 20034 (fatal): …; reboot the node")})));
  EXPECT_TRUE(NeedsReboot(With({1, "xid_kernel_log", T("XID 79 (…): перезагрузите узел", "XID 79 (GPU has fallen off the bus): reboot")})));
  EXPECT_TRUE(NeedsReboot(With({1, "xid_kernel_log", T("x", "XID 142 (…): contact NVIDIA support")})));
  EXPECT_FALSE(NeedsReboot(With({1, "xid_kernel_log", T("x", "XID 48 (Double Bit ECC Error): reset the GPU")})));
  EXPECT_TRUE(NeedsReboot(With({2, "recovery_action", gpu::health::RecoveryActionText("node_reboot")})));
  EXPECT_FALSE(NeedsReboot(With({2, "recovery_action", gpu::health::RecoveryActionText("gpu_reset")})));
  EXPECT_FALSE(NeedsReboot(With({3, "remapped_rows", T("x", "row remap pending a reset")})));
  EXPECT_FALSE(NeedsReboot(NodeVerdict{}));
}

TEST(NeedsReboot, FromAReasonLabCheckWrote) {
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: GPU1 (0000:41:00.0) XID 79 (GPU has fallen off the bus): reboot"));
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: GPU 0000:9a:00.0 on the PCI bus but not in the driver: fell off the bus"));
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: GPU1 (0000:41:00.0) XID 79 (…): перезагрузите узел"));
  EXPECT_FALSE(ReasonNeedsReboot("lab_check: GPU1 (0000:41:00.0) XID 48 (Double Bit ECC Error): reset the GPU"));
}

}  // namespace
}  // namespace labcheck::node_check
