// NVIDIA's real userspace driver without its kernel module (Debian non-free's libcuda1 and
// libnvidia-ml1, unpacked by scripts/fetch-nvidia-userspace.sh, never installed), with a fake /sys
// (LABCHECK_SYS_ROOT) and /proc (LABCHECK_PROC_ROOT) standing in for the bus and the module: the
// answers are the real libraries', asked through the real lab_check binary; the bus and the
// module are the fake trees'. The real libraries read this machine's own /sys and /proc, which
// hold no NVIDIA module (FetchRealNvidiaUserspace skips where one is loaded) and, on CI, no NVIDIA
// card; without the module their answer does not depend on the bus (libcuda cannot open
// /dev/nvidiactl), so the fake bus of eight GPUs is the node whose module did not load.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/files.h"
#include "../platform/temp_tree.h"
#include "real_nvidia_userspace.h"

namespace labcheck::gpu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RealUserspace;
using testing::TempTree;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// A fake /sys with `gpus` NVIDIA 3D controllers (vendor 0x10de, class 0x0302xx, as the kernel
// writes them: Documentation/ABI/testing/sysfs-bus-pci) beside a host bridge, and an empty /proc
// (no driver/nvidia/version: no module). Written here.
struct FakeNode {
  TempTree tree;
  explicit FakeNode(int gpus) {
    tree.Write("sys/bus/pci/devices/0000:00:00.0/vendor", "0x8086\n");
    tree.Write("sys/bus/pci/devices/0000:00:00.0/class", "0x060000\n");
    for (int i = 0; i < gpus; ++i) {
      char dir[64];
      std::snprintf(dir, sizeof dir, "sys/bus/pci/devices/0000:%02x:00.0/", 0x18 + 0x10 * i);
      tree.Write(std::string(dir) + "vendor", "0x10de\n");
      tree.Write(std::string(dir) + "class", "0x030200\n");
    }
    fs::create_directories(tree.root() / "proc");
  }
  std::string Env() const {
    return "LABCHECK_SYS_ROOT=" + Quote((tree.root() / "sys").string()) +
           " LABCHECK_PROC_ROOT=" + Quote((tree.root() / "proc").string());
  }
};

struct Ran {
  int exit_code = -1;
  std::string out, err;
  json report;
};

// `lab_check ARGS` with only NVIDIA's real libraries on LD_LIBRARY_PATH and no simulated machine.
Ran RunLabCheck(const FakeNode& node, const std::string& args) {
  TempTree dir;
  const std::string command = "cd " + Quote(dir.root().string()) + " && env -u CUDA_VISIBLE_DEVICES -u LABCHECK_SIM_MACHINE " +
                              "LD_LIBRARY_PATH=" + Quote(RealUserspace().libdir) + " " + node.Env() + " " +
                              Quote(LAB_CHECK_BINARY) + " " + args + " >out 2>err";
  const int status = std::system(command.c_str());
  Ran ran;
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto read = [&](const char* name) {
    Result<std::string> text = ReadFile((dir.root() / name).string());
    return text.ok() ? *text : std::string();
  };
  ran.out = read("out");
  ran.err = read("err");
  const std::string text = read("report.json");
  if (!text.empty()) ran.report = json::parse(text, nullptr, false);
  return ran;
}

const json* Inventory(const Ran& ran) {
  if (!ran.report.is_object() || !ran.report.contains("checks")) return nullptr;
  for (const json& c : ran.report["checks"])  // a reference into the report, not into a copy
    if (c.value("id", std::string()) == "gpu.inventory") return &c;
  return nullptr;
}

const char* kFullCheck = "--lang en --python /bin/false --out report.md --only gpu.inventory,gpu.matmul";

#define SKIP_WITHOUT_REAL_USERSPACE() \
  if (!RealUserspace().skip.empty()) GTEST_SKIP() << RealUserspace().skip

// What NVIDIA's libraries themselves answer here, as the inventory's child job records it: the
// answers the simulator's "kernel module not loaded" copies (core/kernel_module.h).
TEST(RealDriver, WithoutTheModuleCuInitSays100AndNvmlSays9) {
  SKIP_WITHOUT_REAL_USERSPACE();
  const FakeNode node(8);
  const Ran ran = RunLabCheck(node, kFullCheck);
  const json* inventory = Inventory(ran);
  ASSERT_NE(inventory, nullptr) << ran.out << ran.err;
  const json& state = (*inventory)["data"]["driver_state"];
  EXPECT_EQ(state["libcuda"]["cu_init"], 100) << state.dump(1);
  EXPECT_EQ(state["nvml"]["nvml_init"], 9) << state.dump(1);
  EXPECT_EQ(state["libcuda"]["version"], RealUserspace().version) << "from libcuda.so.1 → libcuda.so." << RealUserspace().version;
  EXPECT_EQ(state["nvml"]["version"], RealUserspace().version);
  EXPECT_EQ(state["libcuda"]["file"].get<std::string>().rfind(RealUserspace().libdir, 0), 0u) << state.dump(1);
}

// The case: a driver installed, its module not loaded, eight GPUs on the bus. The full
// check FAILs "installed but not loaded" with the hint (never "no GPU", never a SKIP), and the
// GPU checks behind it SKIP pointing at it.
TEST(RealDriver, InstalledButNotLoadedIsAFailWithTheHint) {
  SKIP_WITHOUT_REAL_USERSPACE();
  const FakeNode node(8);
  const Ran ran = RunLabCheck(node, kFullCheck);
  const json* inventory = Inventory(ran);
  ASSERT_NE(inventory, nullptr) << ran.out << ran.err;
  EXPECT_EQ(ran.exit_code, 1) << ran.err;
  EXPECT_EQ((*inventory)["status"], "FAIL") << inventory->dump(1);
  const std::string reason = (*inventory).value("reason", std::string());
  EXPECT_EQ(reason, "the NVIDIA driver is installed (libcuda " + RealUserspace().version +
                        ") but its kernel module is not loaded: 8 NVIDIA GPUs on the PCI bus, and no /proc/driver/nvidia/version");
  const std::string hint = (*inventory).value("hint", std::string());
  for (const char* names : {"sudo modprobe nvidia", "dkms status", "uname -r", "mokutil --sb-state"})
    EXPECT_NE(hint.find(names), std::string::npos) << names << ": " << hint;
  EXPECT_EQ(hint.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << hint;
  EXPECT_EQ((*inventory)["data"]["driver_state"]["state"], "module_not_loaded");
  EXPECT_EQ((*inventory)["data"]["driver_state"]["pci_bus"]["nvidia_gpus"].size(), 8u);
  EXPECT_NE((*inventory).value("error", std::string()).find("CUDA_ERROR_NO_DEVICE (100)"), std::string::npos)
      << "cuInit's own answer stays the error: " << inventory->dump(1);
  for (const json& c : ran.report["checks"]) {
    if (c["id"] == "gpu.matmul") {
      EXPECT_EQ(c["status"], "SKIP") << c.dump(1);
    }
  }
}

// The same libraries with no NVIDIA GPU on the bus: nothing to drive, the one case that stays a
// SKIP (exit 0), and it says so instead of naming CUDA_VISIBLE_DEVICES.
TEST(RealDriver, NoGpuOnTheBusStaysASkip) {
  SKIP_WITHOUT_REAL_USERSPACE();
  const FakeNode node(0);
  const Ran ran = RunLabCheck(node, kFullCheck);
  const json* inventory = Inventory(ran);
  ASSERT_NE(inventory, nullptr) << ran.out << ran.err;
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ((*inventory)["status"], "SKIP") << inventory->dump(1);
  EXPECT_EQ((*inventory).value("reason", std::string()), "no NVIDIA GPU on the PCI bus");
  EXPECT_EQ((*inventory)["data"]["driver_state"]["state"], "no_gpu_on_bus");
  EXPECT_EQ((*inventory)["data"]["driver_state"]["nvml"]["nvml_init"], 9);
}

}  // namespace
}  // namespace labcheck::gpu
