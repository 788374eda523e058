// Finding the driver on a simulated machine: stubs first on LD_LIBRARY_PATH (the simulator's stub
// set, NVIDIA's own stub), each cuInit result with its own cause (machines/driver-init-*.json), and
// an NCCL built for a newer CUDA than the driver (build/sim-nvidia-cu13).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "platform/files.h"
#include "scenario_support.h"

namespace labcheck::sim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path kBuild = fs::path(LAB_CHECK_BINARY).parent_path();
const fs::path kSource = LAB_CHECK_SOURCE_DIR;
constexpr const char* kToolkitStub = "/usr/local/cuda/lib64/stubs/libcuda.so";
// What the run printed, shortened, for a failure message (appended piecewise: GCC 12 warns on the
// temporaries of "\n" + a + "\n" + b).
std::string Printed(const SimRun& run) {
  std::string out(1, '\n');
  out.append(run.stdout_text, 0, 4000);
  out.push_back('\n');
  out.append(run.stderr_text, 0, 2000);
  return out;
}

// One child job on a machine profile with this LD_LIBRARY_PATH: its result envelope (null when it
// printed none) and everything it printed.
struct ChildRun {
  json envelope;
  std::string stdout_text;
};

// `env`: more VAR=value words for the child ("LABCHECK_SYS_ROOT='…'").
ChildRun RunChild(const std::string& machine, const std::string& job, const std::string& ld_library_path,
                  const std::string& args = "", const std::string& env = "") {
  char pattern[] = "/tmp/labcheck_simdrv_XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string command = "env -u CUDA_VISIBLE_DEVICES -u LABCHECK_SYS_ROOT -u LABCHECK_PROC_ROOT " + env +
                              " LD_LIBRARY_PATH=" + Quote(ld_library_path) +
                              " LABCHECK_SIM_MACHINE=" +
                              Quote((fs::path(LAB_CHECK_SOURCE_DIR) / "tests/sim/machines" / machine).string()) + " " +
                              Quote(LAB_CHECK_BINARY) + " internal-child " + Quote(job) + " " + args + " >" +
                              Quote((dir / "stdout").string()) + " 2>/dev/null";
  (void)std::system(command.c_str());
  ChildRun run;
  Result<std::string> text = ReadFile((dir / "stdout").string());
  run.stdout_text = text.ok() ? *text : "";
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  constexpr std::string_view kMarker = "LABCHECK_CHILD_RESULT ";
  const size_t at = run.stdout_text.find(kMarker);
  if (at != std::string::npos) run.envelope = json::parse(run.stdout_text.substr(at + kMarker.size()), nullptr, false);
  return run;
}

// The rows of the libraries table for one library, by status ("used", "skipped", "alternative").
std::vector<json> Rows(const json& libraries, const std::string& name, const std::string& status) {
  std::vector<json> rows;
  for (const json& row : libraries)
    if (row.value("name", "") == name && row.value("status", "") == status) rows.push_back(row);
  return rows;
}

// A real driver in one of the usual folders would be found after a refused simulated one.
bool RealDriverInstalled() {
  for (const char* folder : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
                             "/usr/lib/aarch64-linux-gnu", "/usr/lib/wsl/lib"})
    if (fs::exists(fs::path(folder) / "libcuda.so.1")) return true;
  return false;
}

// The stub set first, the simulated driver second: every GPU check runs and passes; the libraries
// table names both stubs as skipped, and the NVML stub's banner on stdout did not spoil the JSON.
// The inventory WARNs: the stub is the libcuda.so.1 every other program of this shell loads.
TEST(SimDriver, StubsFirstOnLdLibraryPathThenTheDriverRunsEveryCheck) {
  const std::string ld = (kBuild / "sim-nvidia-stub").string() + ":" + (kBuild / "sim-nvidia").string();
  SimRun run = RunLabCheck({"course-4x4080.json", {"--quick", "--only", "gpu.*,interconnect.*"}, {{"LD_LIBRARY_PATH", ld}}});
  ASSERT_TRUE(run.report.is_object()) << Printed(run);
  for (const char* id : kGpuChecks)
    EXPECT_EQ(Verdict(run, id), std::string(id) == "gpu.inventory" ? "WARN" : "PASS") << id << Printed(run);
  EXPECT_NE(CheckText(run, "gpu.inventory").find("sim-nvidia-stub"), std::string::npos) << Printed(run);
  const json& libraries = (*Check(run, "gpu.inventory"))["data"]["libraries"];
  const std::vector<json> cuda_skipped = Rows(libraries, "CUDA driver", "skipped");
  ASSERT_EQ(cuda_skipped.size(), 1u) << libraries.dump(1);
  EXPECT_NE(cuda_skipped[0].value("path", "").find("sim-nvidia-stub/libcuda.so.1"), std::string::npos);
  EXPECT_NE(cuda_skipped[0]["note"].value("en", "").find("CUDA toolkit stub (CUDA_ERROR_STUB_LIBRARY (34)), skipped"),
            std::string::npos)
      << cuda_skipped[0].dump();
  EXPECT_NE(cuda_skipped[0]["note"].value("ru", "").find("заглушка"), std::string::npos);
  const std::vector<json> nvml_skipped = Rows(libraries, "NVML", "skipped");
  ASSERT_EQ(nvml_skipped.size(), 1u) << libraries.dump(1);
  EXPECT_NE(nvml_skipped[0]["note"].value("en", "").find("NVML_ERROR_DRIVER_NOT_LOADED"), std::string::npos);
  ASSERT_EQ(Rows(libraries, "NVML", "used").size(), 1u) << libraries.dump(1);
  EXPECT_NE(Rows(libraries, "CUDA driver", "used")[0].value("path", "").find("/sim-nvidia/"), std::string::npos);
  // NVML's fields are there: the simulated NVML, not the stub, answered.
  EXPECT_FALSE((*Check(run, "gpu.inventory"))["data"]["gpus"][0]["pcie_gen_max"].is_null());
  EXPECT_NE(run.markdown.find("заглушка из CUDA Toolkit"), std::string::npos) << "the report (Russian by default) says it";
}

// A copy of the sim's libcuda in a folder named compat, which the profile makes refuse with 804 as
// forward compatibility does on GeForce; the folder is removed with the object. A copy, not a
// link: the loader takes a link to a file it has open for the same library.
struct CompatLibcuda {
  fs::path root, dir, profile;
  CompatLibcuda() {
    char pattern[] = "/tmp/labcheck_compat_XXXXXX";
    root = mkdtemp(pattern);
    dir = root / "compat";
    fs::create_directories(dir);
    fs::copy_file(kBuild / "sim-nvidia/libcuda.so.1", dir / "libcuda.so.1");
    profile = root / "compat-on-geforce.json";
    std::ofstream(profile) << R"({"base": ")" << (kSource / "tests/sim/machines/course-4x4080-unpaced.json").string()
                           << R"(", "cuda": {"compat_copy_folder": "/compat"}})";
  }
  ~CompatLibcuda() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
};

// The compat copy first on LD_LIBRARY_PATH, the working driver second: lab_check takes the second
// and every check runs, but torch in the same shell would load the first and see no GPU. The
// inventory WARNs naming the file and the fix.
TEST(SimDriver, ARefusedCompatLibcudaThatOtherProgramsLoadIsAWarnNamingIt) {
  const CompatLibcuda compat;
  const std::string ld = compat.dir.string() + ":" + (kBuild / "sim-nvidia").string();
  SimRun run = RunLabCheck({compat.profile.string(), {"--lang", "en", "--quick", "--only", "gpu.inventory,gpu.matmul"},
                            {{"LD_LIBRARY_PATH", ld}}});
  ASSERT_TRUE(run.report.is_object()) << Printed(run);
  EXPECT_EQ(Verdict(run, "gpu.matmul"), "PASS") << Printed(run);
  EXPECT_EQ(Verdict(run, "gpu.inventory"), "WARN") << Printed(run);
  const std::string text = CheckText(run, "gpu.inventory");
  EXPECT_NE(text.find((compat.dir / "libcuda.so.1").string() + ", the libcuda.so.1 other programs load first, is refused"),
            std::string::npos) << text;
  EXPECT_NE(text.find("cuda-compat"), std::string::npos) << text;
  EXPECT_NE(text.find("PyTorch in this same shell will see no GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("remove " + compat.dir.string() + " from LD_LIBRARY_PATH"), std::string::npos) << text;
}

// The same copy later on LD_LIBRARY_PATH than the working driver: other programs load the working
// one, and nothing is said.
TEST(SimDriver, ARefusedLibcudaAfterTheWorkingOneIsNotAWarn) {
  const CompatLibcuda compat;
  const std::string ld = (kBuild / "sim-nvidia").string() + ":" + compat.dir.string();
  SimRun run = RunLabCheck({compat.profile.string(), {"--lang", "en", "--quick", "--only", "gpu.inventory"},
                            {{"LD_LIBRARY_PATH", ld}}});
  ASSERT_TRUE(run.report.is_object()) << Printed(run);
  EXPECT_EQ(Verdict(run, "gpu.inventory"), "PASS") << Printed(run);
}

// NVIDIA's real stub, linked as libcuda.so.1 in a folder before the simulated driver.
TEST(SimDriver, NvidiasOwnStubFirstThenTheSimulatedDriver) {
  if (!fs::exists(kToolkitStub)) GTEST_SKIP() << kToolkitStub << " is absent: no CUDA toolkit stub to put first";
  char pattern[] = "/tmp/labcheck_stub_XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  fs::create_symlink(kToolkitStub, dir / "libcuda.so.1");
  ChildRun run = RunChild("single-h200.json", "gpu-inventory", dir.string() + ":" + (kBuild / "sim-nvidia").string());
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  ASSERT_TRUE(run.envelope.is_object()) << run.stdout_text;
  EXPECT_EQ(run.envelope.value("outcome", ""), "ok") << run.envelope.dump();
  EXPECT_EQ(run.envelope["gpus"].size(), 1u);
  const std::vector<json> skipped = Rows(run.envelope["libraries"], "CUDA driver", "skipped");
  ASSERT_EQ(skipped.size(), 1u) << run.envelope["libraries"].dump(1);
  EXPECT_NE(skipped[0]["note"].value("en", "").find("CUDA toolkit stub"), std::string::npos) << skipped[0].dump();
}

// Each cuInit result on a machine with GPUs: the inventory's verdict and a hint naming the thing to
// fix; the two whose cause is the libcuda file (803, 804) say so too.
TEST(SimDriver, EachCuInitResultNamesItsCause) {
  struct Case {
    const char* machine;
    const char* outcome;
    const char* hint_names;
    const char* error_names;
  };
  const Case cases[] = {
      {"driver-init-802-fabric-manager.json", "fail", "nvidia-fabricmanager", "CUDA_ERROR_SYSTEM_NOT_READY (802)"},
      {"driver-init-803-mismatch.json", "fail", "/proc/driver/nvidia/version", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803)"},
      {"driver-init-804-compat.json", "fail", "cuda-compat", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)"},
      {"driver-init-999-unknown.json", "fail", "dmesg", "CUDA_ERROR_UNKNOWN (999)"},
      {"driver-init-100-no-device.json", "skip", "CUDA_VISIBLE_DEVICES", "CUDA_ERROR_NO_DEVICE (100)"},
      {"driver-init-35-insufficient.json", "fail", "proprietary driver", "CUDA_ERROR_INSUFFICIENT_DRIVER (35)"},
      {"driver-init-3-not-initialized.json", "fail", "nvidia_uvm", "CUDA_ERROR_NOT_INITIALIZED (3)"},
      {"driver-init-46-unavailable.json", "fail", "nvidia-smi -c DEFAULT", "CUDA_ERROR_DEVICE_UNAVAILABLE (46)"},
  };
  for (const Case& c : cases) {
    const bool file_level = std::string(c.machine).find("803") != std::string::npos ||
                            std::string(c.machine).find("804") != std::string::npos ||
                            std::string(c.machine).find("-35-") != std::string::npos;
    if (file_level && RealDriverInstalled()) {
      std::printf("%s: not run, a real libcuda here would be found after the refused simulated one\n", c.machine);
      continue;
    }
    ChildRun run = RunChild(c.machine, "gpu-inventory", (kBuild / "sim-nvidia").string());
    ASSERT_TRUE(run.envelope.is_object()) << c.machine << run.stdout_text;
    EXPECT_EQ(run.envelope.value("outcome", ""), c.outcome) << c.machine << " " << run.envelope.dump();
    EXPECT_NE(run.envelope["hint"].value("en", "").find(c.hint_names), std::string::npos) << c.machine << " " << run.envelope.dump();
    EXPECT_FALSE(run.envelope["hint"].value("ru", "").empty()) << c.machine;
    EXPECT_NE(run.envelope.value("error", "").find(c.error_names), std::string::npos) << c.machine << " " << run.envelope.dump();
  }
}

// A fake /sys holding the HGX board's eight GPUs (vendor 0x10de, class 0x030200, as
// Documentation/ABI/testing/sysfs-bus-pci writes them) and a fake /proc, empty or with the module's
// version line in the proprietary module's form (nv-procfs.c's "NVRM version: " and its id).
// Written here.
struct FakeProcAndSys {
  fs::path root;
  explicit FakeProcAndSys(const std::string& module_version = "") {
    char pattern[] = "/tmp/labcheck_simroots_XXXXXX";
    root = mkdtemp(pattern);
    for (const char* id : {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
                           "0000:ba:00.0", "0000:db:00.0"}) {
      fs::create_directories(root / "sys/bus/pci/devices" / id);
      std::ofstream(root / "sys/bus/pci/devices" / id / "vendor") << "0x10de\n";
      std::ofstream(root / "sys/bus/pci/devices" / id / "class") << "0x030200\n";
    }
    fs::create_directories(root / "proc/driver/nvidia");
    if (!module_version.empty())
      std::ofstream(root / "proc/driver/nvidia/version")
          << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " << module_version << "  Sat Feb 15 00:00:00 UTC 2025\n";
  }
  ~FakeProcAndSys() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
  std::string Env() const {
    return "LABCHECK_SYS_ROOT=" + Quote((root / "sys").string()) + " LABCHECK_PROC_ROOT=" + Quote((root / "proc").string());
  }
};

// The simulated driver installed without its module (cuInit 100, nvmlInit_v2 9, as NVIDIA's
// libraries answer: tests/gpu/real_driver_test.cpp). Its /proc and /sys are not this machine's, so
// without fake ones nothing tells it from hidden cards and cuInit's own SKIP stands; with a fake
// bus of eight GPUs and no module in the fake /proc, it is a FAIL saying so.
TEST(SimDriver, AModuleNotLoadedIsAFailWhereTheBusAndProcSaySo) {
  ChildRun unknown = RunChild("driver-module-not-loaded.json", "gpu-inventory", (kBuild / "sim-nvidia").string());
  ASSERT_TRUE(unknown.envelope.is_object()) << unknown.stdout_text;
  EXPECT_EQ(unknown.envelope.value("outcome", ""), "skip") << unknown.envelope.dump();
  const json& unread = unknown.envelope["driver_state"];
  EXPECT_EQ(unread["state"], "unknown") << unread.dump(1);
  EXPECT_EQ(unread["libcuda"]["cu_init"], 100);
  EXPECT_EQ(unread["nvml"]["nvml_init"], 9);
  EXPECT_NE(unread["kernel_module"].value("na", "").find("simulated machine"), std::string::npos) << unread.dump(1);

  const FakeProcAndSys roots;
  ChildRun run = RunChild("driver-module-not-loaded.json", "gpu-inventory", (kBuild / "sim-nvidia").string(), "", roots.Env());
  ASSERT_TRUE(run.envelope.is_object()) << run.stdout_text;
  EXPECT_EQ(run.envelope.value("outcome", ""), "fail") << run.envelope.dump();
  EXPECT_EQ(run.envelope["reason"].value("en", ""),
            "the NVIDIA driver is installed but its kernel module is not loaded: 8 NVIDIA GPUs on the PCI bus, and no "
            "/proc/driver/nvidia/version");
  EXPECT_NE(run.envelope["hint"].value("en", "").find("mokutil --sb-state"), std::string::npos) << run.envelope.dump();
  EXPECT_EQ(run.envelope["driver_state"]["state"], "module_not_loaded") << run.envelope["driver_state"].dump(1);
}

// A driver upgraded without a reboot: the simulated libraries answer 803 and 18 (the real pair's
// codes, cuda.h and nvml.h), and the fake /proc names the old module: both versions are said.
TEST(SimDriver, ALibraryNewerThanTheLoadedModuleSaysBothVersions) {
  if (RealDriverInstalled()) GTEST_SKIP() << "a real libcuda here would be found after the refused simulated one";
  const FakeProcAndSys roots("570.124.06");
  ChildRun run = RunChild("driver-init-803-mismatch.json", "gpu-inventory", (kBuild / "sim-nvidia").string(), "", roots.Env());
  ASSERT_TRUE(run.envelope.is_object()) << run.stdout_text;
  EXPECT_EQ(run.envelope.value("outcome", ""), "fail") << run.envelope.dump();
  const json& state = run.envelope["driver_state"];
  EXPECT_EQ(state["state"], "version_mismatch") << state.dump(1);
  EXPECT_EQ(state["libcuda"]["cu_init"], 803);
  EXPECT_EQ(state["nvml"]["nvml_init"], 18);
  EXPECT_EQ(state["kernel_module"]["version"], "570.124.06");
  EXPECT_NE(run.envelope["reason"].value("en", "").find("the loaded kernel module (570.124.06) are different versions"),
            std::string::npos) << run.envelope.dump();
  EXPECT_NE(run.envelope["hint"].value("en", "").find("reboot"), std::string::npos);
}

// The issue's reproduction: 802 on an NVSwitch board is a FAIL whose hint names the fabric manager,
// in the report a user reads; the other GPU checks SKIP behind it.
TEST(SimDriver, FabricManagerDownIsAFailNamingIt) {
  SimRun run = RunLabCheck({"driver-init-802-fabric-manager.json", {"--quick", "--only", "gpu.*,interconnect.*"}});
  ASSERT_TRUE(run.report.is_object()) << Printed(run);
  EXPECT_EQ(Verdict(run, "gpu.inventory"), "FAIL") << Printed(run);
  const std::string text = CheckText(run, "gpu.inventory");
  EXPECT_NE(text.find("systemctl status nvidia-fabricmanager"), std::string::npos) << text;
  EXPECT_EQ(text.find("proprietary driver"), std::string::npos) << "not the generic driver hint: " << text;
  for (const char* id : {"gpu.matmul", "gpu.memory_bandwidth", "gpu.p2p", "interconnect.allreduce"})
    EXPECT_EQ(Verdict(run, id), "SKIP") << id;
}

// An NCCL built for CUDA 13 first on LD_LIBRARY_PATH of a CUDA 12.0 machine: its ncclCommInit
// would fail (the simulator's does, as the real one), so it is skipped and the CUDA 12.9 build after
// it runs the all-reduce; the inventory shows both.
TEST(SimDriver, NcclBuiltForANewerCudaThanTheDriverIsSkipped) {
  const std::string ld = (kBuild / "sim-nvidia-cu13").string() + ":" + (kBuild / "sim-nvidia").string();
  ChildRun inventory = RunChild("course-old-driver.json", "gpu-inventory", ld);
  ASSERT_TRUE(inventory.envelope.is_object()) << inventory.stdout_text;
  const json& libraries = inventory.envelope["libraries"];
  const std::vector<json> skipped = Rows(libraries, "NCCL", "skipped");
  ASSERT_EQ(skipped.size(), 1u) << libraries.dump(1);
  EXPECT_NE(skipped[0].value("path", "").find("sim-nvidia-cu13/libnccl.so.2"), std::string::npos);
  EXPECT_NE(skipped[0]["note"].value("en", "").find("built for CUDA 13.0, the driver supports CUDA 12.0"), std::string::npos)
      << skipped[0].dump();
  EXPECT_EQ(skipped[0].value("version", ""), "2.27.7 (CUDA 13.0)");
  const std::vector<json> used = Rows(libraries, "NCCL", "used");
  ASSERT_EQ(used.size(), 1u) << libraries.dump(1);
  EXPECT_NE(used[0].value("path", "").find("/sim-nvidia/libnccl.so.2"), std::string::npos);
  EXPECT_EQ(inventory.envelope.value("nccl_cuda_version", ""), "12.9");

  ChildRun allreduce = RunChild("course-old-driver.json", "gpu-allreduce", ld, "--quick");
  ASSERT_TRUE(allreduce.envelope.is_object()) << allreduce.stdout_text.substr(0, 4000);
  EXPECT_EQ(allreduce.envelope.value("outcome", ""), "ok") << allreduce.envelope.dump().substr(0, 4000);
}

}  // namespace
}  // namespace labcheck::sim
