// Which findings keep a drain until the next boot (needs_reboot.h): by each finding's clearing rule
// (data/finding_codes.json), and from the codes of a reason lab_check wrote.
#include <gtest/gtest.h>

#include "gpu/health/recovery_action.h"
#include "node_check/slurm/needs_reboot.h"

namespace labcheck::node_check {
namespace {

NodeVerdict With(Finding f, std::set<std::string> report_only = {}) {
  NodeVerdict v;
  v.findings.push_back(std::move(f));
  Classify(v, report_only);
  return v;
}

TEST(NeedsReboot, ByTheFindingsClearingRule) {
  EXPECT_TRUE(NeedsReboot(With({-1, "gpu_off_bus", T("x", "GPU 0000:9a:00.0 on the PCI bus but not in the driver")})));
  EXPECT_TRUE(NeedsReboot(With({-1, "nvswitch_sxid", T("x", "NVSwitch 0000:07:00.0 SXid 20034 (fatal): …; reboot the node")})));
  EXPECT_TRUE(NeedsReboot(With({1, "xid_reboot", T("x", "XID 79 (GPU has fallen off the bus): reboot")})));
  EXPECT_TRUE(NeedsReboot(With({1, "xid_support", T("x", "XID 142 (…): contact NVIDIA support")})));
  EXPECT_FALSE(NeedsReboot(With({1, "xid_reset", T("x", "XID 48 (Double Bit ECC Error): reset the GPU")})));
  EXPECT_TRUE(NeedsReboot(With({2, "recovery_reboot", gpu::health::RecoveryActionText("node_reboot")})));
  EXPECT_FALSE(NeedsReboot(With({2, "recovery_reset", gpu::health::RecoveryActionText("gpu_reset")})));
  EXPECT_FALSE(NeedsReboot(With({3, "remapped_rows_pending", T("x", "row remap pending a reset")})));
  EXPECT_FALSE(NeedsReboot(NodeVerdict{}));
  // Held back by --report-only, it did not fail the node, so it did not drain it either.
  EXPECT_FALSE(NeedsReboot(With({1, "xid_reboot", T("x", "XID 79")}, {"LC302"})));
}

TEST(NeedsReboot, FromAReasonLabCheckWrote) {
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: LC302 GPU1 (0000:41:00.0) XID 79 (GPU has fallen off the bus): reboot"));
  // Issue 53's codes: a card that fell off the bus or failed to initialise, NVLink setup that failed;
  // drain P2P clears when the driver says so (a later run), no reboot.
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: LC110 GPU1 (0000:41:00.0) fell off the bus (XID 79): reboot"));
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: LC306 GPU 0000:0b:00.0 failed to initialise (RmInitAdapter failed!)"));
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: LC307 the driver could not set up NVLink between the GPUs"));
  EXPECT_FALSE(ReasonNeedsReboot("lab_check: LC308 GPU2 (0000:29:00.0) the driver asks to drain peer-to-peer traffic"));
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: LC301 GPU1 (0000:41:00.0) XID 48 (…): reset the GPU; LC106 GPU 0000:9a:00.0 on the PCI bus"));
  EXPECT_FALSE(ReasonNeedsReboot("lab_check: LC301 GPU1 (0000:41:00.0) XID 48 (Double Bit ECC Error): reset the GPU"));
  // The codes decide, not the words: LC204's action says "or reboot" and still clears with a reset.
  EXPECT_FALSE(ReasonNeedsReboot("lab_check: LC204 GPU1 row remap pending a reset (or reboot)"));
  // A reason from before the codes: by its words.
  EXPECT_TRUE(ReasonNeedsReboot("lab_check: GPU1 (0000:41:00.0) XID 79 (…): перезагрузите узел"));
  EXPECT_FALSE(ReasonNeedsReboot("lab_check: GPU1 (0000:41:00.0) XID 48 (Double Bit ECC Error): reset the GPU"));
}

}  // namespace
}  // namespace labcheck::node_check
