// The node's verdict on hand-written payloads of the gpu-node-check job: one finding per fault,
// naming the card, and none on a healthy node.
#include <gtest/gtest.h>

#include "node_check/findings/judge_node.h"
#include "node_check/slurm/slurm_drain.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

// A healthy H100 SXM card as the job reports it.
json Card(int index) {
  return {{"index", index}, {"name", "NVIDIA H100 80GB HBM3"}, {"pci_bus_id", "0000:1" + std::to_string(index) + ":00.0"},
          {"memory_total_gib", 79.6}, {"nvlink", {{"active", 18}, {"down", 0}}}};
}
json Facts() {
  return {{"ecc_mode", true}, {"ecc_uncorrected_volatile", 0}, {"ecc_uncorrected_aggregate", 0},
          {"retired_pages_single_bit", 0}, {"retired_pages_double_bit", 0}, {"retired_pages_pending", false},
          {"remapped_rows", {{"corrected", 0}, {"uncorrected", 0}, {"pending", false}, {"failed", false}}},
          {"pcie_replay_count", 0}, {"pcie_replay_growth", 0}, {"pcie_gen_max", 5}, {"pcie_width_max", 16},
          {"pcie_gen_under_load", 5}, {"pcie_width_under_load", 16}, {"persistence_mode", true},
          {"power_limit_w", 700.0}, {"power_default_limit_w", 700.0}, {"compute_mode", "default"},
          {"mig_mode", {{"current", false}, {"pending", false}}}, {"other_processes", json::array()},
          {"xid_during_run", json::array()}, {"clock_event_reasons_idle", {"idle"}}, {"temperature_c", 31},
          {"temperature_slowdown_c", 87}};
}

json Payload(int gpus = 8) {
  json p = {{"outcome", "ok"},
            {"inventory", {{"outcome", "ok"}, {"driver_version", "580.95.05"}, {"gpus", json::array()}}},
            {"health", {{"outcome", "ok"}, {"gpus", json::array()}, {"xid_kernel_log", json::array()}}},
            {"matmul", json::array()},
            {"copy", json::array()},
            {"timings_s", {{"driver_s", 0.5}}}};
  for (int i = 0; i < gpus; ++i) {
    p["inventory"]["gpus"].push_back(Card(i));
    p["health"]["gpus"].push_back({{"index", i}, {"pci_bus_id", Card(i)["pci_bus_id"]}, {"facts", Facts()}});
    p["matmul"].push_back({{"index", i}, {"tflops", 720.0}, {"precision", "bf16"}});
    p["copy"].push_back({{"index", i}, {"gbps", 2900.0}});
  }
  return p;
}

std::string Line(const json& payload, const NodeExpectations& e = {}) { return VerdictLine(JudgeNode(payload, e), Lang::En); }

TEST(NodeVerdict, HealthyBoardIsOk) {
  const NodeVerdict v = JudgeNode(Payload(), {});
  EXPECT_EQ(v.state, NodeState::Healthy);
  EXPECT_EQ(VerdictLine(v, Lang::En), "OK");
  ASSERT_EQ(v.gpus.size(), 8u);
  EXPECT_EQ(v.gpus[0]["matmul_tflops"], 720.0);
}

TEST(NodeVerdict, TheIssuesExampleLine) {
  json p = Payload();
  p["health"]["gpus"][3]["facts"]["remapped_rows"]["failed"] = true;
  p["health"]["gpus"][5]["facts"]["pcie_gen_under_load"] = 3;
  EXPECT_EQ(Line(p), "FAIL: LC205 GPU3 (0000:13:00.0) row remap failed; LC402 GPU5 (0000:15:00.0) PCIe Gen3 x16 (max Gen5 x16)");
}

TEST(NodeVerdict, EachHealthFaultNamesItsCard) {
  struct Case {
    const char* key;
    json value;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"ecc_uncorrected_volatile", 2, "LC203 GPU2 (0000:12:00.0) 2 uncorrected ECC errors since the driver loaded"},
      {"retired_pages_pending", true, "LC206 GPU2 (0000:12:00.0) retired pages pending a reset"},
      {"pcie_replay_growth", 5, "LC401 GPU2 (0000:12:00.0) PCIe replays growing (+5 under load)"},
      {"persistence_mode", false, "LC501 GPU2 (0000:12:00.0) persistence mode off"},
      {"power_limit_w", 500.0, "LC502 GPU2 (0000:12:00.0) power limit 500 W (default 700 W)"},
      {"other_processes", json::array({{{"pid", 4242}, {"used_gib", 20.0}, {"name", "python"}}}), "LC503 GPU2 (0000:12:00.0) another process holds 20.0 GiB"},
      {"mig_mode", {{"current", true}, {"pending", true}}, "LC504 GPU2 (0000:12:00.0) MIG on (expected off)"},
      {"xid_during_run", json::array({79}), "LC110 GPU2 (0000:12:00.0) fell off the bus (XID 79 during the check): reboot"},
      {"pcie_width_under_load", 8, "LC402 GPU2 (0000:12:00.0) PCIe Gen5 x8 (max Gen5 x16)"},
  };
  for (const Case& c : cases) {
    json p = Payload();
    p["health"]["gpus"][2]["facts"][c.key] = c.value;
    EXPECT_EQ(Line(p), std::string("FAIL: ") + c.expected) << c.key;
  }
  json pending = Payload();
  pending["health"]["gpus"][1]["facts"]["remapped_rows"]["pending"] = true;
  EXPECT_EQ(Line(pending), "FAIL: LC204 GPU1 (0000:11:00.0) row remap pending a reset");
}

json KernelXid(const std::string& pci, int xid, json extra = json::object()) {
  json x = {{"pci", pci}, {"xid", xid}, {"line", "NVRM: Xid (PCI:" + pci + "): " + std::to_string(xid) + ", pid=4242, name=python3"}};
  x.update(extra);
  return x;
}

TEST(NodeVerdict, KernelLogXidsGoToTheirCard) {
  json p = Payload();
  p["health"]["xid_kernel_log"] = json::array({KernelXid("0000:14:00", 79)});
  EXPECT_EQ(Line(p), "FAIL: LC110 GPU4 (0000:14:00.0) fell off the bus (XID 79): reboot");
  // Unreadable (dmesg_restrict): not a finding.
  p["health"]["xid_kernel_log"] = {{"na", "/dev/kmsg is readable only by root here"}};
  EXPECT_EQ(Line(p), "OK");
}

// NVIDIA's catalog decides (data/xid_catalog.json): a user's page fault (31) and graphics
// exception (13) are RESTART_APP, reported but not a fault of the node; XID 48 (double-bit ECC)
// wants a GPU reset, 79 (fallen off the bus) a reboot; an XID the catalog lacks is CONTACT_SUPPORT.
TEST(NodeVerdict, KernelLogXidsByTheirCatalogBucket) {
  json p = Payload();
  p["health"]["xid_kernel_log"] = json::array({KernelXid("0000:12:00", 31), KernelXid("0000:13:00", 13)});
  const NodeVerdict app = JudgeNode(p, {});
  EXPECT_EQ(VerdictLine(app, Lang::En), "OK");
  ASSERT_EQ(app.xids.size(), 2u);
  EXPECT_EQ(app.xids[0]["gpu"], 2);
  EXPECT_EQ(app.xids[0]["bucket"], "RESTART_APP");
  EXPECT_EQ(app.xids[0]["class"], "application");
  EXPECT_EQ(app.xids[0]["fails"], false);
  EXPECT_EQ(app.xids[0]["note"], "pid=4242, name=python3");

  p["health"]["xid_kernel_log"].push_back(KernelXid("0000:15:00", 48));
  EXPECT_EQ(Line(p), "FAIL: LC301 GPU5 (0000:15:00.0) XID 48 (Double Bit ECC Error): reset the GPU");
  p["health"]["xid_kernel_log"].push_back(KernelXid("0000:16:00", 999));
  EXPECT_EQ(Line(p), "FAIL: LC301 GPU5 (0000:15:00.0) XID 48 (Double Bit ECC Error): reset the GPU; LC303 GPU6 (0000:16:00.0) XID 999 (not in NVIDIA's catalog): contact NVIDIA support");
}

TEST(NodeVerdict, AResetClassXidClearsWhenTheDriverLoadedOrTheGpuWasResetAfterIt) {
  json p = Payload();
  p["health"]["xid_kernel_log"] = json::array({KernelXid("0000:15:00", 48, {{"cleared_by", "driver_load"}})});
  const NodeVerdict v = JudgeNode(p, {});
  EXPECT_EQ(VerdictLine(v, Lang::En), "OK");
  EXPECT_EQ(v.xids[0]["cleared_by"], "driver_load");
  p["health"]["xid_kernel_log"][0]["cleared_by"] = "gpu_reset";
  EXPECT_EQ(Line(p), "OK");
  // A reboot-class XID is not cleared by a driver reload: only a reboot empties the log.
  p["health"]["xid_kernel_log"] = json::array({KernelXid("0000:14:00", 79, {{"cleared_by", "driver_load"}})});
  EXPECT_EQ(Line(p), "FAIL: LC110 GPU4 (0000:14:00.0) fell off the bus (XID 79): reboot");
}

TEST(NodeVerdict, TheSitesListsComeFirst) {
  json p = Payload();
  p["health"]["xid_kernel_log"] = json::array({KernelXid("0000:14:00", 79), KernelXid("0000:12:00", 31)});
  NodeExpectations e;
  e.xid_ignore = {79};
  EXPECT_EQ(Line(p, e), "OK");
  e.xid_fail = {31};
  EXPECT_EQ(Line(p, e), "FAIL: LC301 GPU2 (0000:12:00.0) XID 31 (GPU memory page fault): reset the GPU");
  // During the check any XID fails, whatever its bucket: nothing but our own work ran.
  json during = Payload();
  during["health"]["gpus"][1]["facts"]["xid_during_run"] = json::array({13});
  EXPECT_EQ(Line(during), "FAIL: LC301 GPU1 (0000:11:00.0) XID 13 (Graphics Engine Exception) during the check");
}

TEST(NodeVerdict, Xid154FollowsTheDriversRecoveryAction) {
  json p = Payload();
  p["health"]["xid_kernel_log"] = json::array({KernelXid("0000:13:00", 154)});
  p["health"]["xid_kernel_log"][0]["line"] =
      "NVRM: Xid (PCI:0000:13:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)";
  EXPECT_EQ(Line(p), "FAIL: LC302 GPU3 (0000:13:00.0) XID 154 (GPU Recovery Action Changed): reboot");
  p["health"]["xid_kernel_log"][0]["line"] = "NVRM: Xid (PCI:0000:13:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)";
  EXPECT_EQ(Line(p), "OK");
}

TEST(NodeVerdict, ExpectationsOnCountModelMemoryDriverMig) {
  NodeExpectations e;
  e.gpus = 8;
  EXPECT_EQ(Line(Payload(7), e), "FAIL: LC101 7 GPUs, expected 8");
  e = {};
  e.model = "A100";
  EXPECT_EQ(JudgeNode(Payload(2), e).findings.size(), 2u);
  EXPECT_EQ(FindingText(JudgeNode(Payload(2), e).findings[0], Lang::En), "GPU0 NVIDIA H100 80GB HBM3, expected A100");
  e.model = "h100";
  EXPECT_EQ(Line(Payload(), e), "OK");
  e = {};
  e.driver = "570";
  EXPECT_EQ(Line(Payload(), e), "FAIL: LC103 driver 580.95.05, expected 570");
  e.driver = "580.95";
  EXPECT_EQ(Line(Payload(), e), "OK");
  e = {};
  e.mig = true;
  EXPECT_EQ(JudgeNode(Payload(1), e).findings.at(0).item, "mig_mode");
  json mixed = Payload(4);
  mixed["inventory"]["gpus"][2]["memory_total_gib"] = 39.5;
  EXPECT_EQ(Line(mixed), "FAIL: LC202 GPU2 (0000:12:00.0) memory 39.5 GiB, the others 79.6");
}

TEST(NodeVerdict, NvLinksAgainstTheModel) {
  json p = Payload();
  p["inventory"]["gpus"][6]["nvlink"] = {{"active", 16}, {"down", 2}};
  EXPECT_EQ(Line(p), "FAIL: LC403 GPU6 (0000:16:00.0) NVLink 16/18 links up");
  // An SXM board's cards have every link wired: links that do not even answer count as missing.
  p["inventory"]["gpus"][6]["nvlink"] = {{"active", 12}, {"down", 0}};
  EXPECT_EQ(Line(p), "FAIL: LC403 GPU6 (0000:16:00.0) NVLink 12/18 links up");
  // A100 PCIe: no bridge is no finding, a half-seated bridge is.
  json a100 = Payload(2);
  for (json& g : a100["inventory"]["gpus"]) {
    g["name"] = "NVIDIA A100 80GB PCIe";
    g["nvlink"] = {{"active", 0}, {"down", 0}};
  }
  for (json& h : a100["health"]["gpus"]) {
    h["facts"]["pcie_gen_max"] = 4;
    h["facts"]["pcie_gen_under_load"] = 4;
  }
  for (json& m : a100["matmul"]) m["tflops"] = 250.0;
  for (json& c : a100["copy"]) c["gbps"] = 1700.0;
  EXPECT_EQ(Line(a100), "OK");
  a100["inventory"]["gpus"][1]["nvlink"] = {{"active", 4}, {"down", 8}};
  EXPECT_EQ(Line(a100), "FAIL: LC403 GPU1 (0000:11:00.0) NVLink 4/12 links up");
}

// Issue 42: NVML calls a link with nothing attached down. A bridged PCIe card (the A40:
// bridge_links 4 in data/gpus.json) or a card the catalog does not know, with every link down, has
// no bridge; some up and some down is a bridge badly seated. One SXM card alone on the node (a
// cloud VM given one GPU of a board) has no peer at the other end; an SXM card with peers and its
// links all down is still a finding.
TEST(NodeVerdict, LinksWithNothingAttachedAreNotDown) {
  for (const char* name : {"NVIDIA A40", "NVIDIA Unknown GPU"}) {
    json pair = Payload(2);
    for (json& g : pair["inventory"]["gpus"]) {
      g["name"] = name;
      g["nvlink"] = {{"active", 0}, {"down", 4}};
    }
    pair["matmul"] = json::array();
    pair["copy"] = json::array();
    EXPECT_EQ(Line(pair), "OK") << name;
    pair["inventory"]["gpus"][1]["nvlink"] = {{"active", 2}, {"down", 2}};
    EXPECT_EQ(Line(pair), "FAIL: LC403 GPU1 (0000:11:00.0) NVLink 2/4 links up") << name;
  }

  json vm = Payload(1);
  vm["inventory"]["gpus"][0]["nvlink"] = {{"active", 0}, {"down", 18}};
  EXPECT_EQ(Line(vm), "OK");
  json board = Payload(2);
  board["inventory"]["gpus"][1]["nvlink"] = {{"active", 0}, {"down", 18}};
  EXPECT_EQ(Line(board), "FAIL: LC403 GPU1 (0000:11:00.0) NVLink 0/18 links up");
}

// Issue 42: with MPS the one process NVML lists is MPS's server; it is infrastructure. Another
// process beside it is still a finding.
TEST(NodeVerdict, TheMpsServerIsNotAnotherProcess) {
  json p = Payload(1);
  p["health"]["gpus"][0]["facts"]["other_processes"] =
      json::array({{{"pid", 777}, {"used_gib", 0.6}, {"name", "nvidia-cuda-mps-server"}}});
  EXPECT_EQ(Line(p), "OK");
  p["health"]["gpus"][0]["facts"]["other_processes"].push_back({{"pid", 4242}, {"used_gib", 20.0}, {"name", "python"}});
  EXPECT_EQ(Line(p), "FAIL: LC503 GPU0 (0000:10:00.0) another process holds 20.0 GiB");
}

// Issue 42: from a container's PID namespace NVML's pids are the host's and cannot be named, so
// MPS's server cannot be told from a leftover there: the memory counts, and the line gives the pids.
TEST(NodeVerdict, HostPidsSeenFromAContainerAreNamedAsSuch) {
  json p = Payload(1);
  p["health"]["gpus"][0]["facts"]["other_processes"] =
      json::array({{{"pid", 91234}, {"used_gib", 12.0}, {"name", nullptr}, {"host_pid", true}}});
  EXPECT_EQ(Line(p), "FAIL: LC503 GPU0 (0000:10:00.0) another process holds 12.0 GiB (host PID 91234: not nameable from the "
                     "container's PID namespace)");
}

// Issue 42: a MIG slice is judged as what it is, not against the whole card's band; with
// --expect-mig on the MIG node is healthy.
TEST(NodeVerdict, AMigSliceIsNotFarBelowTheWholeCard) {
  json p = Payload(1);
  p["inventory"]["gpus"][0]["name"] = "NVIDIA H100 80GB HBM3 MIG 1g.10gb";
  p["inventory"]["gpus"][0]["memory_total_gib"] = 9.75;
  p["health"]["gpus"][0]["facts"]["mig_mode"] = {{"current", true}, {"pending", true}};
  p["matmul"][0]["tflops"] = 95.0;  // a seventh of the card's SMs
  p["copy"][0]["gbps"] = 400.0;
  NodeExpectations mig;
  mig.mig = true;
  EXPECT_EQ(Line(p, mig), "OK");
  EXPECT_EQ(Line(p), "FAIL: LC504 GPU0 (0000:10:00.0) MIG on (expected off)");
}

// Issue 42: a cap set on purpose (nvidia-smi -pl 600 on a 700 W card) is accepted with
// --expect-power-limit; a card below the cap is still named.
TEST(NodeVerdict, ADeliberatePowerCapIsAccepted) {
  json p = Payload(2);
  for (json& h : p["health"]["gpus"]) h["facts"]["power_limit_w"] = 600.0;
  EXPECT_EQ(Line(p), "FAIL: LC502 GPU0 (0000:10:00.0) power limit 600 W (default 700 W); LC502 GPU1 (0000:11:00.0) power limit 600 W "
                     "(default 700 W)");
  NodeExpectations capped;
  capped.power_limit_w = 600;
  EXPECT_EQ(Line(p, capped), "OK");
  p["health"]["gpus"][1]["facts"]["power_limit_w"] = 450.0;
  EXPECT_EQ(Line(p, capped), "FAIL: LC502 GPU1 (0000:11:00.0) power limit 450 W (expected 600+)");
}

TEST(NodeVerdict, SlowCardsAgainstTheBandAndTheirSiblings) {
  json p = Payload();
  p["matmul"][1]["tflops"] = 300.0;  // far below 989.5 × 0.70 × 0.8
  p["matmul"][4]["tflops"] = 600.0;  // in the band, 17 % below the median
  p["copy"][7]["gbps"] = 2300.0;     // above 3350 × 0.80 × 0.8, but 21 % below the others
  const NodeVerdict v = JudgeNode(p, {});
  ASSERT_EQ(v.findings.size(), 3u) << VerdictLine(v, Lang::En);
  EXPECT_EQ(FindingText(v.findings[0], Lang::En, v.gpus), "GPU1 (0000:11:00.0) matmul 300 TFLOPS (expected 693+)");
  EXPECT_EQ(FindingText(v.findings[1], Lang::En), "GPU4 matmul 600 TFLOPS, 17% below the others");
  EXPECT_EQ(v.findings[2].gpu, 7);
  EXPECT_EQ(v.findings[2].item, "copy_spread");
  // Looser thresholds take them back.
  NodeExpectations loose;
  loose.max_spread = 0.7;
  loose.perf_tolerance = 0.9;
  EXPECT_EQ(Line(p, loose), "OK");
}

TEST(NodeVerdict, NoBenchmarkAnywhereIsNoFinding) {
  json p = Payload(2);
  for (json& m : p["matmul"]) m = {{"index", m["index"]}, {"na", "no usable cuBLASLt"}};
  EXPECT_EQ(Line(p), "OK");
  p["matmul"][0] = {{"index", 0}, {"tflops", 720.0}};
  p["matmul"][1] = {{"index", 1}, {"error", "CUDA_ERROR_ILLEGAL_ADDRESS"}};
  EXPECT_EQ(Line(p), "FAIL: LC605 GPU1 (0000:11:00.0) matmul failed: CUDA_ERROR_ILLEGAL_ADDRESS");
}

TEST(NodeVerdict, RussianByDefault) {
  json p = Payload();
  p["health"]["gpus"][3]["facts"]["remapped_rows"]["failed"] = true;
  EXPECT_EQ(VerdictLine(JudgeNode(p, {}), Lang::Ru), "FAIL: LC205 GPU3 (0000:13:00.0) замена строк памяти не удалась");
}

TEST(SlurmDrain, CommandAndReason) {
  const std::string reason = DrainReason("GPU3 row remap failed; GPU5 \"x\"\nnext");
  EXPECT_EQ(reason, "lab_check: GPU3 row remap failed; GPU5  x  next");
  EXPECT_EQ(CommandLine(DrainArgv("gpu07", reason)),
            "scontrol update nodename=gpu07 state=drain reason=\"lab_check: GPU3 row remap failed; GPU5  x  next\"");
  EXPECT_LE(DrainReason(std::string(1000, 'a')).size(), 240u);
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "SLURMD_NODENAME") return std::string("gpu07");
    return std::nullopt;
  };
  EXPECT_EQ(SlurmNodeName(env), "gpu07");
  EXPECT_FALSE(SlurmNodeName([](const std::string&) { return std::optional<std::string>(); }).empty());
}

}  // namespace
}  // namespace labcheck::node_check
