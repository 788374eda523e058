// node-check when CUDA does not start, with the real binary: a driver installed whose kernel module
// is not loaded exits 1 naming it (LC120), libraries and module of different versions exit 1
// (LC121), and only a bus without NVIDIA GPUs stays "cannot tell" (exit 3). On the simulated
// machine (tests/sim: kernel_module/loaded, kernel_module/version) and on NVIDIA's real 535
// userspace (Debian non-free's libcuda1 and libnvidia-ml1, unpacked into the build folder by
// scripts/fetch-nvidia-userspace.sh, never installed). The bus and the module are fake trees
// (LABCHECK_SYS_ROOT, LABCHECK_PROC_ROOT): the HGX board's eight GPUs (fake_sysfs.h), a /proc
// without driver/nvidia, or with the module's version line.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "../gpu/real_nvidia_userspace.h"
#include "fake_sysfs.h"
#include "node_check_run.h"
#include "runner/cancel.h"

namespace labcheck::node_check {
namespace {

namespace fs = std::filesystem;
using testing::NodeCheck;

class NodeCheckDriverState : public testing::FakeSysTest {
 protected:
  void SetUp() override {
    FakeSysTest::SetUp();
    fs::create_directories(Proc());
  }
  std::string Sys() const { return dir_ + "/sys"; }
  std::string Proc() const { return dir_ + "/proc"; }
  std::vector<std::pair<std::string, std::string>> Roots() const {
    return {{"LABCHECK_SYS_ROOT", Sys()}, {"LABCHECK_PROC_ROOT", Proc()}};
  }
  // The module's version line as the proprietary module writes it (nv-procfs.c: "NVRM version: "
  // and the module's id). Written here.
  void LoadedModule(const std::string& version) const {
    fs::create_directories(Proc() + "/driver/nvidia");
    std::ofstream(Proc() + "/driver/nvidia/version")
        << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " << version << "  Sat Feb 15 00:00:00 UTC 2025\n";
  }
};

bool RealDriverInstalled() {
  for (const char* folder : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
                             "/usr/lib/aarch64-linux-gnu", "/usr/lib/wsl/lib"})
    if (fs::exists(fs::path(folder) / "libcuda.so.1")) return true;
  return false;
}

TEST_F(NodeCheckDriverState, SimulatedModuleNotLoadedExitsOneNamingIt) {
  if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
  testing::AddHgxBoard(Sys());
  testing::Run run = NodeCheck("driver-module-not-loaded.json", {}, Roots());
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out << run.outcome.err;
  EXPECT_EQ(run.line, "FAIL: LC120 NVIDIA driver installed, kernel module not loaded (8 GPUs on the PCI bus)");
  EXPECT_NE(run.outcome.err.find("mokutil --sb-state"), std::string::npos) << run.outcome.err;
  // The simulated machine's own /proc and /sys are this machine's, not the profile's: without fake
  // ones nothing tells it from hidden cards, and the old "cannot tell" stands.
  testing::Run unknown = NodeCheck("driver-module-not-loaded.json");
  EXPECT_EQ(unknown.outcome.exit_code, 3) << unknown.outcome.out << unknown.outcome.err;
  EXPECT_EQ(unknown.line.rfind("UNKNOWN: ", 0), 0u) << unknown.line;
}

TEST_F(NodeCheckDriverState, SimulatedVersionMismatchExitsOneNamingIt) {
  if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
  if (RealDriverInstalled()) GTEST_SKIP() << "a real libcuda here would be found after the refused simulated one";
  testing::AddHgxBoard(Sys());
  LoadedModule("570.124.06");
  testing::Run run = NodeCheck("driver-init-803-mismatch.json", {"--json"}, Roots());
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out << run.outcome.err;
  ASSERT_TRUE(run.json.is_object()) << run.outcome.out;
  EXPECT_EQ(run.json["line"], "FAIL: LC121 NVIDIA driver libraries and kernel module of different versions");
  EXPECT_EQ(run.json["driver_state"]["state"], "version_mismatch") << run.json.dump(1);
  EXPECT_EQ(run.json["driver_state"]["nvml"]["nvml_init"], 18);
  EXPECT_EQ(run.json["driver_state"]["libcuda"]["cu_init"], 803);
  EXPECT_EQ(run.json["driver_state"]["kernel_module"]["version"], "570.124.06");
}

// NVIDIA's own libraries without their module (they answer cuInit 100 and nvmlInit_v2 9 here),
// under slurmd's empty environment. Eight GPUs on the bus: exit 1 naming it; none: exit 3.
testing::Run RealDriverNodeCheck(const std::string& sys, const std::string& proc, std::vector<std::string> args = {}) {
  ChildSpec spec;
  spec.argv = {"/usr/bin/env", "-i", "LD_LIBRARY_PATH=" + labcheck::testing::RealUserspace().libdir,
               "LABCHECK_SYS_ROOT=" + sys, "LABCHECK_PROC_ROOT=" + proc, LAB_CHECK_BINARY, "node-check", "--lang", "en"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout_s = 120;
  testing::Run run;
  run.outcome = RunChild(spec, CancelToken::Never());
  run.line = run.outcome.out.substr(0, run.outcome.out.find('\n'));
  if (!run.line.empty() && run.line[0] == '{') run.json = nlohmann::json::parse(run.line, nullptr, false);
  return run;
}

TEST_F(NodeCheckDriverState, RealDriverInstalledButNotLoadedExitsOneAndAnEmptyBusThree) {
  const labcheck::testing::RealNvidiaUserspace& real = labcheck::testing::RealUserspace();
  if (!real.skip.empty()) GTEST_SKIP() << real.skip;
  testing::AddHgxBoard(Sys());
  testing::Run run = RealDriverNodeCheck(Sys(), Proc());
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out << run.outcome.err;
  EXPECT_EQ(run.line, "FAIL: LC120 NVIDIA driver " + real.version + " installed, kernel module not loaded (8 GPUs on the PCI bus)");
  testing::Run json = RealDriverNodeCheck(Sys(), Proc(), {"--json"});
  ASSERT_TRUE(json.json.is_object()) << json.outcome.out << json.outcome.err;
  EXPECT_EQ(json.json["driver_state"]["nvml"]["nvml_init"], 9) << json.json.dump(1);
  EXPECT_EQ(json.json["driver_state"]["libcuda"]["cu_init"], 100);
  EXPECT_EQ(json.json["findings"][0]["code"], "LC120");

  const std::string empty_sys = dir_ + "/empty-sys";
  testing::WriteAttribute(empty_sys + "/bus/pci/devices/0000:00:00.0/vendor", "0x8086");
  testing::WriteAttribute(empty_sys + "/bus/pci/devices/0000:00:00.0/class", "0x060000");
  testing::Run none = RealDriverNodeCheck(empty_sys, Proc());
  EXPECT_EQ(none.outcome.exit_code, 3) << none.outcome.out << none.outcome.err;
  EXPECT_EQ(none.line, "UNKNOWN: no NVIDIA GPU on the PCI bus");
}

}  // namespace
}  // namespace labcheck::node_check
