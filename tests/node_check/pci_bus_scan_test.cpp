// The cards on the PCI bus against the driver's (pci_bus_scan.h, bus_findings.cpp): a fake sysfs
// read as the kernel writes it, and the finding that names a card the driver lost.
#include "node_check/scan/pci_bus_scan.h"

#include <gtest/gtest.h>

#include "fake_sysfs.h"
#include "node_check/findings/judge_node.h"
#include "node_check/outputs/node_report.h"
#include "node_check/outputs/prometheus_metrics.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

using PciBusScan = testing::FakeSysTest;

TEST_F(PciBusScan, CountsGpusAndSwitchesApart) {
  testing::AddHgxBoard(dir_);
  const json bus = ScanPciBus(dir_);
  ASSERT_TRUE(bus.contains("gpus")) << bus.dump();
  EXPECT_EQ(bus["gpus"].size(), 8u) << bus.dump();
  EXPECT_EQ(bus["gpus"][4], "0000:9a:00.0");
  EXPECT_EQ(bus["nvswitches"].size(), 4u) << bus.dump();
}

TEST_F(PciBusScan, NoSysfsIsNotAvailable) {
  EXPECT_TRUE(ScanPciBus(dir_ + "/absent").contains("na"));
}

EnvLookup Environment(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST_F(PciBusScan, SomeCardsGivenIsPartial) {
  EXPECT_FALSE(PartialScope(Environment({})));
  EXPECT_FALSE(PartialScope(Environment({{"NVIDIA_VISIBLE_DEVICES", "all"}})));
  EXPECT_EQ(PartialScope(Environment({{"CUDA_VISIBLE_DEVICES", "0,1"}})), "CUDA_VISIBLE_DEVICES=0,1");
  EXPECT_EQ(PartialScope(Environment({{"NVIDIA_VISIBLE_DEVICES", "2"}})), "NVIDIA_VISIBLE_DEVICES=2");
  EXPECT_EQ(PartialScope(Environment({{"SLURM_JOB_GPUS", "3"}})), "SLURM_JOB_GPUS=3");
}

// Issue 45: a container given some cards by device node alone sees the host's whole /sys; its
// /dev/nvidiaN nodes say which cards it was given. On a host (no container marker) nothing is read.
TEST_F(PciBusScan, AContainerIsGivenTheCardsItsDeviceNodesName) {
  const std::string root = dir_ + "/root", sys = dir_ + "/sys";
  testing::AddHgxBoard(sys);
  for (const char* node : {"nvidia3", "nvidia0", "nvidiactl", "nvidia-uvm", "nvidia-modeset"})
    testing::WriteAttribute(root + "/dev/" + node, "");
  EXPECT_FALSE(ContainerScope(root, Environment({}))) << "no marker: a host";
  testing::WriteAttribute(root + "/.dockerenv", "");
  EXPECT_EQ(ContainerScope(root, Environment({})), "a container (/.dockerenv), device nodes=/dev/nvidia0,/dev/nvidia3");
  const json facts = PciBusFacts(Environment({{"LABCHECK_SYS_ROOT", sys}, {"LABCHECK_FS_ROOT", root}}), false);
  EXPECT_EQ(facts["partial"], "a container (/.dockerenv), device nodes=/dev/nvidia0,/dev/nvidia3") << facts.dump();
  // A fake /sys without a fake root of its own is never judged by the real container it runs in.
  EXPECT_FALSE(PciBusFacts(Environment({{"LABCHECK_SYS_ROOT", sys}}), false).contains("partial"));
  // Podman and systemd-nspawn say so in the environment; a container given every card is the whole node.
  const std::string bare = dir_ + "/bare";
  for (int i = 0; i < 8; ++i) testing::WriteAttribute(bare + "/dev/nvidia" + std::to_string(i), "");
  EXPECT_EQ(ContainerScope(bare, Environment({{"container", "podman"}})).value_or("").rfind("a container (container=podman)", 0), 0u);
  const json all = PciBusFacts(Environment({{"LABCHECK_SYS_ROOT", sys}, {"LABCHECK_FS_ROOT", bare}, {"container", "podman"}}), false);
  EXPECT_FALSE(all.contains("partial")) << all.dump();
}

TEST_F(PciBusScan, ASimulatedMachineNeverReadsTheRealSys) {
  EXPECT_TRUE(PciBusFacts(Environment({}), true).contains("na"));
  testing::AddHgxBoard(dir_);
  const json facts = PciBusFacts(Environment({{"LABCHECK_SYS_ROOT", dir_}, {"CUDA_VISIBLE_DEVICES", "0"}}), true);
  EXPECT_EQ(facts["gpus"].size(), 8u) << facts.dump();
  EXPECT_EQ(facts["partial"], "CUDA_VISIBLE_DEVICES=0");
  // A job given every card is the whole node: the bus is compared again.
  const json all = PciBusFacts(Environment({{"LABCHECK_SYS_ROOT", dir_}, {"SLURM_JOB_GPUS", "0,1,2,3,4,5,6,7"}}), true);
  EXPECT_FALSE(all.contains("partial")) << all.dump();
}

// Seven of the eight bus ids in the driver's inventory, written as CUDA writes them (upper case).
json PayloadWithout(const std::string& lost, const json& bus) {
  json gpus = json::array();
  int index = 0;
  for (const json& id : bus["gpus"]) {
    if (id == lost) continue;
    std::string upper = id.get<std::string>();
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    gpus.push_back({{"index", index++}, {"name", "NVIDIA H100 80GB HBM3"}, {"pci_bus_id", upper}, {"memory_total_gib", 79.6}});
  }
  return {{"inventory", {{"gpus", gpus}}}, {"pci_bus", bus}};
}

std::vector<std::string> Items(const NodeVerdict& v, const std::string& item) {
  std::vector<std::string> texts;
  for (const Finding& f : v.findings)
    if (f.item == item) texts.push_back(FindingText(f, Lang::En));
  return texts;
}

TEST_F(PciBusScan, ACardTheDriverLostIsNamedWithAndWithoutExpectGpus) {
  testing::AddHgxBoard(dir_);
  const json payload = PayloadWithout("0000:9a:00.0", ScanPciBus(dir_));
  const std::vector<std::string> expected = {
      "GPU 0000:9a:00.0 on the PCI bus but not in the driver: fell off the bus or failed to initialise; see the kernel log"};
  EXPECT_EQ(Items(JudgeNode(payload, {}), "gpu_off_bus"), expected);
  NodeExpectations eight;
  eight.gpus = 8;
  const NodeVerdict v = JudgeNode(payload, eight);
  EXPECT_EQ(Items(v, "gpu_off_bus"), expected);
  EXPECT_EQ(Items(v, "gpu_count"), std::vector<std::string>{"7 GPUs, expected 8"});
  EXPECT_EQ(v.state, NodeState::Unhealthy);
}

// Issue 53, item 5: tooling that files the RMA by findings[].pci_bus_id gets the lost card's bus
// id (it was only in the text), in --json and in the metrics' labels.
TEST_F(PciBusScan, TheLostCardsBusIdIsInTheJsonAndTheMetrics) {
  testing::AddHgxBoard(dir_);
  const json payload = PayloadWithout("0000:9a:00.0", ScanPciBus(dir_));
  const NodeVerdict v = JudgeNode(payload, {});
  const json report = NodeReportJson(v, payload, {}, "gpu07");
  json lost;
  for (const json& f : report["findings"])
    if (f["code"] == "LC106") lost = f;
  ASSERT_TRUE(lost.is_object()) << report["findings"].dump();
  EXPECT_EQ(lost["pci_bus_id"], "0000:9a:00.0");
  EXPECT_EQ(lost["gpu"], nullptr);
  const std::string metrics = PrometheusText(v, payload, 0);
  EXPECT_NE(metrics.find(R"(lab_check_finding{code="LC106",severity="reboot",gpu="",uuid="",held="false",pci_bus_id="0000:9a:00.0",device="",port=""} 1)"),
            std::string::npos)
      << metrics;
}

TEST_F(PciBusScan, AllCardsInTheDriverOrAPartialRunSayNothing) {
  testing::AddHgxBoard(dir_);
  json bus = ScanPciBus(dir_);
  EXPECT_TRUE(Items(JudgeNode(PayloadWithout("none", bus), {}), "gpu_off_bus").empty());
  bus["partial"] = "CUDA_VISIBLE_DEVICES=0,1,2,3,5,6,7";
  EXPECT_TRUE(Items(JudgeNode(PayloadWithout("0000:9a:00.0", bus), {}), "gpu_off_bus").empty());
}

}  // namespace
}  // namespace labcheck::node_check
