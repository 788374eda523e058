// The driver's state from its facts (gpu/nvidia/driver_state.h): each state from the facts that
// make it, what the check says in it, the JSON other parts read, and the readers of /proc, /sys
// and the library file names on fake trees. NVIDIA's real libraries answer in real_driver_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>

#include "env/nvidia_pci.h"
#include "gpu/nvidia/driver_state.h"
#include "gpu/nvidia/driver_state_probe.h"
#include "../platform/temp_tree.h"

namespace labcheck::gpu {
namespace {

using testing::TempTree;

// The libcuda and NVML of NVIDIA's 535.261.03 on a machine without its module, as they answered
// here (cuInit 100, nvmlInit_v2 9: real_driver_test.cpp), and a bus of `gpus` NVIDIA GPUs with
// no driver bound. Written here.
DriverFacts InstalledNotLoaded(int gpus = 8) {
  DriverFacts f;
  f.libcuda = DriverLibraryFacts{"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "535.261.03", cuda::kErrorNoDevice};
  f.nvml = DriverLibraryFacts{"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "535.261.03", 9};
  f.module.read = true;
  f.bus = env::NvidiaPciBus{};
  for (int i = 0; i < gpus; ++i) f.bus->devices.push_back({"0000:1" + std::to_string(i) + ":00.0", true, false, ""});
  return f;
}

TEST(DriverState, EachStateFromTheFactsThatMakeIt) {
  EXPECT_EQ(JudgeDriverState(InstalledNotLoaded()), DriverStateKind::ModuleNotLoaded);
  EXPECT_EQ(JudgeDriverState(InstalledNotLoaded(0)), DriverStateKind::NoGpuOnBus) << "the only case that stays a SKIP";

  DriverFacts running = InstalledNotLoaded();
  running.libcuda->init_result = cuda::kSuccess;
  EXPECT_EQ(JudgeDriverState(running), DriverStateKind::Running);

  DriverFacts nvml_mismatch = InstalledNotLoaded();
  nvml_mismatch.nvml->init_result = 18;  // NVML_ERROR_LIB_RM_VERSION_MISMATCH
  EXPECT_EQ(JudgeDriverState(nvml_mismatch), DriverStateKind::VersionMismatch);
  DriverFacts cuda_mismatch = InstalledNotLoaded();
  cuda_mismatch.libcuda->init_result = cuda::kErrorSystemDriverMismatch;
  EXPECT_EQ(JudgeDriverState(cuda_mismatch), DriverStateKind::VersionMismatch);
  DriverFacts versions_differ = InstalledNotLoaded();
  versions_differ.module.loaded = true;
  versions_differ.module.version = "550.54.14";
  EXPECT_EQ(JudgeDriverState(versions_differ), DriverStateKind::VersionMismatch);

  DriverFacts loaded = InstalledNotLoaded();
  loaded.module.loaded = true;
  loaded.module.version = "535.261.03";
  EXPECT_EQ(JudgeDriverState(loaded), DriverStateKind::Loaded) << "cuInit's own reason stands (a hidden card, a cgroup)";
  DriverFacts nvml_works = InstalledNotLoaded();
  nvml_works.nvml->init_result = 0;
  EXPECT_EQ(JudgeDriverState(nvml_works), DriverStateKind::Loaded) << "NVML cannot initialise without the module";

  DriverFacts none = InstalledNotLoaded();
  none.libcuda.reset();
  none.nvml.reset();
  EXPECT_EQ(JudgeDriverState(none), DriverStateKind::NotInstalled);
  DriverFacts stubs = none;  // the toolkit's stub libcuda (34) and an NVML without a versioned file
  stubs.libcuda_stub_seen = true;
  stubs.nvml = DriverLibraryFacts{"/opt/conda/lib/libnvidia-ml.so.1", "", 9};
  EXPECT_EQ(JudgeDriverState(stubs), DriverStateKind::NotInstalled) << "a stub's 9 says nothing of the driver";

  DriverFacts simulated = InstalledNotLoaded();  // no fake /proc or /sys: neither is read
  simulated.module.read = false;
  simulated.bus.reset();
  EXPECT_EQ(JudgeDriverState(simulated), DriverStateKind::Unknown);
  DriverFacts bus_unread = InstalledNotLoaded();
  bus_unread.bus->devices.clear();
  bus_unread.bus->na = "nothing under /sys/bus/pci/devices";
  EXPECT_EQ(JudgeDriverState(bus_unread), DriverStateKind::Unknown) << "a FAIL needs the cards on the bus";
}

// GPUs bound to vfio-pci are a hypervisor's, handed to its virtual machines: not a driver to run.
TEST(DriverState, GpusHandedToVirtualMachinesAreNotThisSystemsToDrive) {
  DriverFacts f = InstalledNotLoaded(2);
  for (env::NvidiaPciDevice& d : f.bus->devices) d.driver = "vfio-pci";
  EXPECT_EQ(JudgeDriverState(f), DriverStateKind::NoGpuOnBus);
  const std::optional<DriverProblem> said = ProblemForState({DriverStateKind::NoGpuOnBus, f}, ClassifyInitResult(100, "e"));
  ASSERT_TRUE(said);
  EXPECT_NE(said->reason.en.find("2 NVIDIA GPUs on the PCI bus, all handed to virtual machines (vfio-pci)"), std::string::npos)
      << said->reason.en;
  f.bus->devices[1].driver = "";
  EXPECT_EQ(JudgeDriverState(f), DriverStateKind::ModuleNotLoaded);
}

TEST(DriverState, ModuleNotLoadedIsAFailWithTheModprobeHint) {
  const DriverState state{DriverStateKind::ModuleNotLoaded, InstalledNotLoaded()};
  const DriverProblem cuda = ClassifyInitResult(cuda::kErrorNoDevice, "cuInit: CUDA_ERROR_NO_DEVICE (100)");
  ASSERT_EQ(cuda.verdict, DriverVerdict::Skip) << "cuInit alone says no device";
  const std::optional<DriverProblem> said = ProblemForState(state, cuda);
  ASSERT_TRUE(said);
  EXPECT_EQ(said->verdict, DriverVerdict::Fail);
  EXPECT_EQ(said->reason.en,
            "the NVIDIA driver is installed (libcuda 535.261.03) but its kernel module is not loaded: 8 NVIDIA GPUs on "
            "the PCI bus, and no /proc/driver/nvidia/version");
  EXPECT_NE(said->reason.ru.find("модуль ядра не загружен"), std::string::npos) << said->reason.ru;
  for (const char* names : {"sudo modprobe nvidia", "dkms status", "uname -r", "mokutil --sb-state", "Key was rejected by service",
                            "Module nvidia not found", "No such device"})
    EXPECT_NE(said->hint.en.find(names), std::string::npos) << names << ": " << said->hint.en;
  EXPECT_NE(said->hint.ru.find("mokutil --sb-state"), std::string::npos);
  EXPECT_EQ(said->hint.en.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << "not the hidden-cards hint";
  EXPECT_EQ(said->error, cuda.error) << "cuInit's answer stays the error";

  DriverFacts nouveau = InstalledNotLoaded(1);
  nouveau.bus->devices[0].driver = "nouveau";
  const std::optional<DriverProblem> held = ProblemForState({DriverStateKind::ModuleNotLoaded, nouveau}, cuda);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->hint.en.rfind("the cards are held by nouveau", 0), 0u) << held->hint.en;
  EXPECT_NE(held->reason.en.find("1 NVIDIA GPU on the PCI bus"), std::string::npos) << held->reason.en;
}

TEST(DriverState, AMismatchSaysBothVersionsAndToReboot) {
  DriverFacts f = InstalledNotLoaded();
  f.nvml->init_result = 18;
  f.libcuda->init_result = cuda::kErrorSystemDriverMismatch;
  f.module.loaded = true;
  f.module.version = "550.54.14";
  const DriverProblem cuda = ClassifyInitResult(cuda::kErrorSystemDriverMismatch, "cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803)");
  const std::optional<DriverProblem> said = ProblemForState({DriverStateKind::VersionMismatch, f}, cuda);
  ASSERT_TRUE(said);
  EXPECT_EQ(said->verdict, DriverVerdict::Fail);
  EXPECT_NE(said->reason.en.find("libraries (535.261.03) and the loaded kernel module (550.54.14) are different versions"),
            std::string::npos) << said->reason.en;
  for (const char* names : {"reboot", "rmmod nvidia_uvm", "modprobe nvidia", "/proc/driver/nvidia/version"})
    EXPECT_NE(said->hint.en.find(names), std::string::npos) << names << ": " << said->hint.en;
  // cuInit's 803 beside an NVML that works is a libcuda foreign to the running driver (a cuda-compat
  // copy this branch does not support): the module is fine, and cuInit's own reason names the file.
  DriverFacts compat = InstalledNotLoaded();
  compat.libcuda->init_result = cuda::kErrorSystemDriverMismatch;
  compat.nvml->init_result = 0;
  EXPECT_EQ(JudgeDriverState(compat), DriverStateKind::Loaded);
  // 803 with no NVML to ask: most likely the module, but cuInit's reason, which names both causes, stands.
  DriverFacts no_nvml = compat;
  no_nvml.nvml.reset();
  ASSERT_EQ(JudgeDriverState(no_nvml), DriverStateKind::VersionMismatch);
  EXPECT_FALSE(ProblemForState({DriverStateKind::VersionMismatch, no_nvml}, cuda));
}

// No GPU on the bus and not installed change only a SKIP's words; a FAIL of cuInit's stays.
TEST(DriverState, TheSkipsSayWhatTheBusHolds) {
  const DriverProblem no_device = ClassifyInitResult(cuda::kErrorNoDevice, "e");
  const std::optional<DriverProblem> empty = ProblemForState({DriverStateKind::NoGpuOnBus, InstalledNotLoaded(0)}, no_device);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->verdict, DriverVerdict::Skip);
  EXPECT_EQ(empty->reason.en, "no NVIDIA GPU on the PCI bus");
  EXPECT_FALSE(ProblemForState({DriverStateKind::NoGpuOnBus, InstalledNotLoaded(0)}, ClassifyInitResult(999, "e")));
  // Only the toolkit's stub: the bus first, then the stub's own words and hint.
  DriverFacts stub_only = InstalledNotLoaded(0);
  stub_only.libcuda.reset();
  stub_only.libcuda_stub_seen = true;
  const std::optional<DriverProblem> stub_empty =
      ProblemForState({DriverStateKind::NoGpuOnBus, stub_only}, ClassifyInitResult(cuda::kErrorStubLibrary, ""));
  ASSERT_TRUE(stub_empty);
  EXPECT_EQ(stub_empty->reason.en, "no NVIDIA GPU on the PCI bus; only the CUDA toolkit's stub libcuda.so was found: no GPU driver");
  EXPECT_NE(stub_empty->hint.en.find("stubs"), std::string::npos) << stub_empty->hint.en;

  DriverFacts none = InstalledNotLoaded(4);
  none.libcuda.reset();
  none.nvml.reset();
  none.libcuda_stub_seen = true;
  const std::optional<DriverProblem> stub = ProblemForState({DriverStateKind::NotInstalled, none}, ClassifyInitResult(34, ""));
  ASSERT_TRUE(stub);
  EXPECT_EQ(stub->verdict, DriverVerdict::Skip);
  EXPECT_EQ(stub->reason.en, "4 NVIDIA GPUs on the PCI bus, but no NVIDIA driver is installed (only the CUDA toolkit's stub libcuda.so)");
  EXPECT_NE(stub->hint.en.find("stubs"), std::string::npos) << "the stub's own hint: " << stub->hint.en;
  EXPECT_FALSE(ProblemForState({DriverStateKind::Loaded, InstalledNotLoaded()}, no_device));
  EXPECT_FALSE(ProblemForState({DriverStateKind::Unknown, InstalledNotLoaded()}, no_device));
}

TEST(DriverState, TheJsonCarriesTheStateAndItsEvidence) {
  DriverFacts f = InstalledNotLoaded(2);
  f.bus->devices[1].driver = "nouveau";
  const nlohmann::json j = DriverStateJson({DriverStateKind::ModuleNotLoaded, f});
  EXPECT_EQ(j["state"], "module_not_loaded");
  EXPECT_EQ(j["libcuda"]["cu_init"], 100);
  EXPECT_EQ(j["libcuda"]["version"], "535.261.03");
  EXPECT_EQ(j["nvml"]["nvml_init"], 9);
  EXPECT_EQ(j["kernel_module"]["loaded"], false);
  EXPECT_TRUE(j["kernel_module"]["version"].is_null());
  EXPECT_EQ(j["pci_bus"]["nvidia_gpus"], nlohmann::json({"0000:10:00.0", "0000:11:00.0"}));
  EXPECT_TRUE(j["pci_bus"]["drivers"]["0000:10:00.0"].is_null());
  EXPECT_EQ(j["pci_bus"]["drivers"]["0000:11:00.0"], "nouveau");
  DriverFacts unread;
  unread.module.na = "not read: a simulated machine";
  unread.bus_na = "not read: a simulated machine";
  const nlohmann::json u = DriverStateJson({DriverStateKind::Unknown, unread});
  EXPECT_EQ(u["state"], "unknown");
  EXPECT_TRUE(u["libcuda"].is_null());
  EXPECT_EQ(u["kernel_module"]["na"], "not read: a simulated machine");
  EXPECT_EQ(u["pci_bus"]["na"], "not read: a simulated machine");
}

// The first line of /proc/driver/nvidia/version is "NVRM version: " and the module's id
// (NVIDIA/open-gpu-kernel-modules kernel-open/nvidia/nv-procfs.c, nv_procfs_read_version); the
// proprietary module's id reads "NVIDIA UNIX x86_64 Kernel Module  <version>  <date>", the open
// one's "NVIDIA UNIX Open Kernel Module for <arch>  <version>  Release Build  (<builder>)  <date>".
// These lines are written here in those two forms.
TEST(DriverState, TheModuleVersionFromProc) {
  EXPECT_EQ(ModuleVersionFromProc("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.261.03  Wed Jun 11 00:00:00 UTC 2025\n"
                                  "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "535.261.03");
  EXPECT_EQ(ModuleVersionFromProc("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
                                  "(builder@host)  Tue Sep 23 00:00:00 UTC 2025\n"),
            "580.95.05");
  EXPECT_EQ(ModuleVersionFromProc("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.124.06  Release Build\n"),
            "570.124.06");
  EXPECT_EQ(ModuleVersionFromProc("GCC version:  gcc version 12.2.0\n"), "") << "not the first line's";
  EXPECT_EQ(ModuleVersionFromProc(""), "");
}

TEST(DriverState, TheLibraryVersionFromItsFileName) {
  EXPECT_EQ(DriverVersionFromFileName("libcuda.so.535.261.03"), "535.261.03");
  EXPECT_EQ(DriverVersionFromFileName("libnvidia-ml.so.580.95.05"), "580.95.05");
  EXPECT_EQ(DriverVersionFromFileName("libcuda.so.1"), "");
  EXPECT_EQ(DriverVersionFromFileName("libcuda.so.1.1"), "") << "WSL's libcuda";
  EXPECT_EQ(DriverVersionFromFileName("libnvidia-ml.so"), "") << "the toolkit's stub";
  EXPECT_EQ(DriverVersionFromFileName("libcublasLt.so.12.9.1.4"), "");
  // Through the symlinks a package installs: libcuda.so.1 → libcuda.so.535.261.03.
  TempTree tree;
  tree.Write("lib/libcuda.so.535.261.03");
  tree.Link("lib/libcuda.so.1", "libcuda.so.535.261.03");
  const DriverLibraryFacts facts = LibraryFacts((tree.root() / "lib/libcuda.so.1").string(), 100);
  EXPECT_EQ(facts.version, "535.261.03");
  EXPECT_EQ(facts.init_result, 100);
  EXPECT_EQ(LibraryFacts((tree.root() / "lib/absent.so.1").string(), std::nullopt).version, "");
}

TEST(DriverState, TheKernelModuleFromFakeTrees) {
  TempTree tree;
  const std::string proc = (tree.root() / "proc").string(), sys = (tree.root() / "sys").string();
  std::filesystem::create_directories(proc);
  std::filesystem::create_directories(sys);
  KernelModuleFacts absent = ReadKernelModule(proc, sys);
  EXPECT_TRUE(absent.read);
  EXPECT_FALSE(absent.loaded);
  EXPECT_FALSE(ReadKernelModule(std::nullopt, sys).read) << "without /proc nothing is judged";

  tree.Write("sys/module/nvidia/version", "550.54.14\n");
  KernelModuleFacts from_sys = ReadKernelModule(proc, sys);
  EXPECT_TRUE(from_sys.loaded);
  EXPECT_EQ(from_sys.version, "550.54.14");
  EXPECT_EQ(from_sys.source, sys + "/module/nvidia/version");

  tree.Write("proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Thu Feb 22 2024\n");
  KernelModuleFacts from_proc = ReadKernelModule(proc, sys);
  EXPECT_TRUE(from_proc.loaded);
  EXPECT_EQ(from_proc.version, "550.54.15") << "/proc's, read first";
  EXPECT_EQ(from_proc.source, proc + "/driver/nvidia/version");
}

// The bus as sysfs lists it (Documentation/ABI/testing/sysfs-bus-pci: vendor, class, the driver
// link), written here.
TEST(DriverState, TheNvidiaDevicesOnAFakeBus) {
  TempTree tree;
  auto device = [&](const std::string& id, const char* vendor, const char* cls) {
    tree.Write("sys/bus/pci/devices/" + id + "/vendor", std::string(vendor) + "\n");
    tree.Write("sys/bus/pci/devices/" + id + "/class", std::string(cls) + "\n");
  };
  device("0000:18:00.0", "0x10de", "0x030200");
  device("0000:18:00.1", "0x10de", "0x040300");  // the card's audio function
  device("0000:2a:00.0", "0x10de", "0x030000");
  device("0000:05:00.0", "0x10de", "0x068000");  // an NVSwitch
  device("0000:00:00.0", "0x8086", "0x060000");
  tree.Write("sys/bus/pci/drivers/nouveau/x");
  tree.Link("sys/bus/pci/devices/0000:2a:00.0/driver", "../../../bus/pci/drivers/nouveau");
  const env::NvidiaPciBus bus = env::ReadNvidiaPciBus((tree.root() / "sys").string());
  EXPECT_FALSE(bus.na);
  EXPECT_EQ(bus.Gpus(), (std::vector<std::string>{"0000:18:00.0", "0000:2a:00.0"}));
  EXPECT_EQ(bus.NvSwitches(), (std::vector<std::string>{"0000:05:00.0"}));
  ASSERT_EQ(bus.devices.size(), 3u);
  EXPECT_EQ(bus.devices[2].driver, "nouveau");
  EXPECT_EQ(bus.devices[1].driver, "");
  EXPECT_TRUE(env::ReadNvidiaPciBus((tree.root() / "nothing").string()).na);
}

}  // namespace
}  // namespace labcheck::gpu
