// The driver's state as node-check's findings (findings/driver_state_findings.cpp), on hand-written
// "driver_state" objects in the form gpu/nvidia/driver_state.h writes them; the real binary on
// the simulated machine and on NVIDIA's real libraries is in node_check_driver_state_test.cpp.
#include <gtest/gtest.h>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

json State(const std::string& name, int gpus_on_bus = 8) {
  json gpus = json::array();
  for (int i = 0; i < gpus_on_bus; ++i) gpus.push_back("0000:1" + std::to_string(i) + ":00.0");
  return {{"state", name},
          {"libcuda", {{"file", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}, {"version", "535.261.03"}, {"cu_init", 100}}},
          {"nvml", {{"file", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"}, {"version", "535.261.03"}, {"nvml_init", 9}}},
          {"kernel_module", {{"loaded", false}, {"version", nullptr}, {"source", nullptr}}},
          {"pci_bus", {{"nvidia_gpus", gpus}, {"drivers", json::object()}}}};
}

NodeVerdict Judged(const json& state, bool whole_node = true) {
  NodeVerdict v;
  if (AddDriverStateFindings(state, whole_node, v.findings)) v.state = NodeState::Unhealthy;
  Classify(v, {});
  return v;
}

TEST(DriverStateFindings, InstalledButNotLoadedIsLc120NamingTheDriverAndTheBus) {
  const NodeVerdict v = Judged(State("module_not_loaded"));
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].code, "LC120");
  EXPECT_EQ(v.state, NodeState::Unhealthy);
  EXPECT_EQ(VerdictLine(v, Lang::En), "FAIL: LC120 NVIDIA driver 535.261.03 installed, kernel module not loaded (8 GPUs on the PCI bus)");
  EXPECT_EQ(VerdictLine(v, Lang::Ru), "FAIL: LC120 драйвер NVIDIA 535.261.03 установлен, модуль ядра не загружен (на шине PCI 8 GPU)");
  for (const char* names : {"sudo modprobe nvidia", "dkms status", "uname -r", "mokutil --sb-state"})
    EXPECT_NE(v.findings[0].action.en.find(names), std::string::npos) << names << ": " << v.findings[0].action.en;
  // Also in a container or under a job's GPUs: /proc and /sys are the host's kernel's.
  EXPECT_EQ(Judged(State("module_not_loaded"), false).findings.size(), 1u);
}

TEST(DriverStateFindings, VersionsThatDifferAreLc121WithBothWhereRead) {
  json state = State("version_mismatch");
  state["nvml"]["version"] = "580.95.05";
  state["nvml"]["nvml_init"] = 18;
  state["kernel_module"] = {{"loaded", true}, {"version", "570.124.06"}, {"source", "/proc/driver/nvidia/version"}};
  const NodeVerdict v = Judged(state);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(VerdictLine(v, Lang::En), "FAIL: LC121 NVIDIA driver libraries 580.95.05, kernel module 570.124.06");
  EXPECT_NE(v.findings[0].action.en.find("reboot the node"), std::string::npos);
  state["kernel_module"]["version"] = nullptr;
  EXPECT_EQ(VerdictLine(Judged(state), Lang::En), "FAIL: LC121 NVIDIA driver libraries and kernel module of different versions");
}

// No driver with cards on the bus: only when the run is given the whole node (a container without
// the driver injected sees the host's bus, and its cards are not its own).
TEST(DriverStateFindings, NoDriverWithGpusOnTheBusIsLc122OnlyForTheWholeNode) {
  json state = State("not_installed", 2);
  state["libcuda"] = nullptr;
  state["nvml"] = nullptr;
  EXPECT_EQ(VerdictLine(Judged(state), Lang::En), "FAIL: LC122 no NVIDIA driver installed (2 GPUs on the PCI bus)");
  EXPECT_TRUE(Judged(state, false).findings.empty());
  EXPECT_TRUE(Judged(State("not_installed", 0)).findings.empty());
}

// The states that leave cuInit's own verdict: nothing on the bus ("cannot tell", exit 3), a module
// loaded while CUDA sees no card (a job's device cgroup hides them too), a simulated machine
// without fake trees, a child that wrote no state.
TEST(DriverStateFindings, OtherStatesLeaveCuInitsVerdict) {
  for (const char* name : {"no_gpu_on_bus", "loaded", "unknown", "running"}) {
    std::vector<Finding> out;
    EXPECT_FALSE(AddDriverStateFindings(State(name), true, out)) << name;
    EXPECT_TRUE(out.empty()) << name;
  }
  std::vector<Finding> out;
  EXPECT_FALSE(AddDriverStateFindings(nullptr, true, out));
  EXPECT_FALSE(AddDriverStateFindings(json::object(), true, out));
}

}  // namespace
}  // namespace labcheck::node_check
