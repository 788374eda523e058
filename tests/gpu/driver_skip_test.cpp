// The SKIP and FAIL paths without a GPU: the real stub libcuda from the CUDA toolkit, no driver at
// all, each cuInit result with its own cause, the search going past stubs to the (simulated)
// driver, and what the parent makes of a child that crashed or timed out.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/gpu_checks.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/live_gpus.h"
#include "gpu/nvidia/cuda_driver.h"
#include "gpu/nvidia/nvml_library.h"
#include "../platform/temp_tree.h"
#include "sim_dirs.h"

namespace labcheck::gpu {
namespace {

constexpr const char* kStubFolder = "/usr/local/cuda/lib64/stubs";

bool HaveStub() { return std::filesystem::exists(std::string(kStubFolder) + "/libcuda.so"); }

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DriverInit, ResultsMapToSkipOrFail) {
  EXPECT_EQ(ClassifyInitResult(cuda::kSuccess, "").verdict, DriverVerdict::Ready);
  EXPECT_EQ(ClassifyInitResult(cuda::kErrorStubLibrary, "").verdict, DriverVerdict::Skip);
  EXPECT_EQ(ClassifyInitResult(cuda::kErrorNoDevice, "").verdict, DriverVerdict::Skip);
  DriverProblem mismatch = ClassifyInitResult(cuda::kErrorSystemDriverMismatch, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  EXPECT_EQ(mismatch.verdict, DriverVerdict::Fail);
  EXPECT_FALSE(mismatch.hint.ru.empty());
  EXPECT_FALSE(mismatch.hint.en.empty());
  EXPECT_EQ(ClassifyInitResult(999, "CUDA_ERROR_UNKNOWN").verdict, DriverVerdict::Fail);
}

// Every cuInit result we name has its own reason and a hint that names what to do, in both
// languages, and the verdict its cause deserves: nothing to measure (SKIP) or a machine with GPUs
// that cannot run CUDA (FAIL).
TEST(DriverInit, EachResultHasItsOwnCauseVerdictAndHint) {
  struct Case {
    cuda::CUresult code;
    DriverVerdict verdict;
    const char* hint_names;    // in the English hint
    const char* reason_names;  // in the English reason
  };
  const Case cases[] = {
      {cuda::kErrorStubLibrary, DriverVerdict::Skip, "stubs", "stub"},
      {cuda::kErrorNoDevice, DriverVerdict::Skip, "CUDA_VISIBLE_DEVICES", "sees no GPU"},
      {cuda::kErrorSystemNotReady, DriverVerdict::Fail, "systemctl status nvidia-fabricmanager", "nvidia-fabricmanager"},
      {cuda::kErrorSystemDriverMismatch, DriverVerdict::Fail, "/proc/driver/nvidia/version", "kernel module"},
      {cuda::kErrorCompatNotSupportedOnDevice, DriverVerdict::Fail, "cuda-compat", "forward-compatibility"},
      {cuda::kErrorUnknown, DriverVerdict::Fail, "nvidia_uvm", "could not reach the GPU"},
      {cuda::kErrorInsufficientDriver, DriverVerdict::Fail, "proprietary driver", "too old"},
      {cuda::kErrorNotInitialized, DriverVerdict::Fail, "modprobe nvidia_uvm", "nvidia_uvm"},
      {cuda::kErrorDeviceUnavailable, DriverVerdict::Fail, "nvidia-smi -c DEFAULT", "EXCLUSIVE_PROCESS"},
  };
  std::set<std::string> hints;
  for (const Case& c : cases) {
    const std::string name = KnownResultName(c.code);
    DriverProblem problem = ClassifyInitResult(c.code, name);
    EXPECT_EQ(problem.verdict, c.verdict) << name;
    EXPECT_NE(problem.hint.en.find(c.hint_names), std::string::npos) << name << ": " << problem.hint.en;
    EXPECT_NE(problem.reason.en.find(c.reason_names), std::string::npos) << name << ": " << problem.reason.en;
    for (const Text* text : {&problem.reason, &problem.hint}) {
      EXPECT_FALSE(text->ru.empty()) << name;
      EXPECT_NE(text->ru, text->en) << name << ": not translated";
    }
    hints.insert(problem.hint.en);
  }
  EXPECT_GE(hints.size(), std::size(cases) - 1) << "hints repeat";  // only "too old" shares the driver hint
  EXPECT_EQ(ClassifyInitResult(cuda::kErrorSystemNotReady, "x").verdict, DriverVerdict::Fail);
  EXPECT_NE(ClassifyInitResult(12345, "CUresult 12345").reason.en.find("CUresult 12345"), std::string::npos);
}

// 802 said by NVML's fabric state: still registering is "still starting", never "not running";
// without a state both causes are named (node-check's scenarios pin the first two end to end).
// The install command is the one this distribution has (issue 56): ubuntu-drivers exists on
// Ubuntu only; Debian installs its nvidia-driver package; elsewhere no command is guessed.
TEST(DriverInit, TheInstallHintNamesTheDistributionsOwnCommand) {
  EXPECT_NE(DriverInstallHintFor("ubuntu").en.find("sudo ubuntu-drivers install"), std::string::npos);
  const Text debian = DriverInstallHintFor("debian");
  EXPECT_EQ(debian.en.find("ubuntu-drivers"), std::string::npos) << debian.en;
  EXPECT_NE(debian.en.find("sudo apt install nvidia-driver"), std::string::npos) << debian.en;
  const Text rocky = DriverInstallHintFor("rocky");
  EXPECT_EQ(rocky.en.find("ubuntu-drivers"), std::string::npos) << rocky.en;
  EXPECT_EQ(rocky.en.find("apt"), std::string::npos) << rocky.en;
  EXPECT_FALSE(rocky.ru.empty());
}

TEST(DriverInit, SystemNotReadySaysWhatTheFabricStateTells) {
  const DriverProblem starting = FabricNotReady(FabricRegistration::InProgress, "e");
  EXPECT_NE(starting.reason.en.find("still starting"), std::string::npos) << starting.reason.en;
  EXPECT_EQ(starting.reason.en.find("not running"), std::string::npos) << starting.reason.en;
  EXPECT_NE(starting.hint.en.find("wait a minute"), std::string::npos) << starting.hint.en;
  const DriverProblem unknown = FabricNotReady(FabricRegistration::Unknown, "e");
  EXPECT_NE(unknown.reason.en.find("not running, or still registering"), std::string::npos) << unknown.reason.en;
  EXPECT_NE(FabricNotReady(FabricRegistration::Failed, "e").reason.en.find("failed to register"), std::string::npos);
  for (FabricRegistration r : {FabricRegistration::Unknown, FabricRegistration::NotStarted, FabricRegistration::InProgress,
                               FabricRegistration::Failed}) {
    const DriverProblem p = FabricNotReady(r, "e");
    EXPECT_EQ(p.verdict, DriverVerdict::Fail);
    EXPECT_EQ(p.init_result, cuda::kErrorSystemNotReady);
    EXPECT_NE(p.reason.ru, p.reason.en);
  }
}

TEST(DriverInit, OnlyResultsThatCondemnTheFileMoveTheSearchOn) {
  for (cuda::CUresult code : {cuda::kErrorStubLibrary, cuda::kErrorInsufficientDriver, cuda::kErrorSystemDriverMismatch,
                              cuda::kErrorCompatNotSupportedOnDevice})
    EXPECT_TRUE(InitResultRefusesLibrary(code)) << code;
  for (cuda::CUresult code : {cuda::kSuccess, cuda::kErrorNoDevice, cuda::kErrorSystemNotReady, cuda::kErrorUnknown,
                              cuda::kErrorNotInitialized, cuda::kErrorDeviceUnavailable})
    EXPECT_FALSE(InitResultRefusesLibrary(code)) << code;
  EXPECT_NE(RefusedLibraryReason(cuda::kErrorStubLibrary, "CUDA_ERROR_STUB_LIBRARY (34)").en.find("CUDA toolkit stub"),
            std::string::npos);
}

using testing::kSimDir;
using testing::kSimStubDir;
std::string SimMachinePath() { return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/single-h200.json"; }

// NVIDIA's own stub, as libcuda.so.1, in a folder on LD_LIBRARY_PATH before the (simulated) driver:
// the stub is skipped, and the driver one folder later is taken.
TEST(DriverSearch, GoesPastTheToolkitStubToTheDriver) {
  if (!HaveStub()) GTEST_SKIP() << "no CUDA toolkit stub";
  ScopedEnv machine("LABCHECK_SIM_MACHINE", SimMachinePath());
  testing::TempTree tree;
  tree.Link("stubs/libcuda.so.1", std::string(kStubFolder) + "/libcuda.so");
  LibrarySearchPaths paths;
  paths.ld_library_path = {(tree.root() / "stubs").string(), kSimDir.string()};
  DriverProblem problem;
  std::unique_ptr<CudaDriver> driver = CudaDriver::Load(paths, &problem);
  ASSERT_NE(driver, nullptr) << problem.reason.en << " " << problem.error;
  EXPECT_EQ(problem.verdict, DriverVerdict::Ready);
  EXPECT_NE(driver->file().find("sim-nvidia/libcuda.so.1"), std::string::npos) << driver->file();
  EXPECT_FALSE(driver->SimulatedMachine().empty());
  ASSERT_EQ(driver->skipped().size(), 1u);
  EXPECT_NE(driver->skipped()[0].file.find("stubs/libcuda.so.1"), std::string::npos);
  EXPECT_NE(driver->skipped()[0].why.en.find("CUDA toolkit stub (CUDA_ERROR_STUB_LIBRARY (34)), skipped"),
            std::string::npos)
      << driver->skipped()[0].why.en;
  EXPECT_NE(driver->skipped()[0].why.ru.find("заглушка"), std::string::npos);
}

// The simulator's stub set (build/sim-nvidia-stub: libcuda.so.1 answering 34 to everything,
// libnvidia-ml.so.1 answering NVML_ERROR_DRIVER_NOT_LOADED) before the simulated driver: both are
// skipped, and NVML comes up too.
TEST(DriverSearch, GoesPastTheSimulatedStubSetForCudaAndNvml) {
  ScopedEnv machine("LABCHECK_SIM_MACHINE", SimMachinePath());
  LibrarySearchPaths paths;
  paths.ld_library_path = {kSimStubDir.string(), kSimDir.string()};
  {
    DriverProblem problem;
    std::unique_ptr<CudaDriver> driver = CudaDriver::Load(paths, &problem);
    ASSERT_NE(driver, nullptr) << problem.reason.en << " " << problem.error;
    EXPECT_NE(driver->file().find("sim-nvidia/libcuda.so.1"), std::string::npos) << driver->file();
    ASSERT_FALSE(driver->skipped().empty());
    EXPECT_NE(driver->skipped()[0].file.find("sim-nvidia-stub/libcuda.so.1"), std::string::npos);
  }
  Result<std::unique_ptr<Nvml>> nvml = Nvml::Load(paths);
  ASSERT_TRUE(nvml.ok()) << nvml.status().message();
  EXPECT_NE((*nvml)->file().find("sim-nvidia/libnvidia-ml.so.1"), std::string::npos) << (*nvml)->file();
  ASSERT_FALSE((*nvml)->skipped().empty());
  EXPECT_NE((*nvml)->skipped()[0].why.en.find("NVML_ERROR_DRIVER_NOT_LOADED (9)"), std::string::npos)
      << (*nvml)->skipped()[0].why.en;
  EXPECT_NE(RefusedNvmlReason("/usr/local/cuda/lib64/stubs/libnvidia-ml.so", 9).en.find("CUDA toolkit NVML stub"),
            std::string::npos);
}

// Only a stub to be found: still the stub's SKIP, with every attempt in the error.
TEST(DriverSearch, OnlyStubsFoundIsTheStubsSkip) {
  LibrarySearchPaths paths;
  paths.ld_library_path = {kSimStubDir.string()};
  DriverProblem problem;
  EXPECT_EQ(CudaDriver::Load(paths, &problem), nullptr);
  if (problem.verdict == DriverVerdict::Ready) GTEST_SKIP() << "this machine has a working CUDA driver";
  EXPECT_EQ(problem.verdict, DriverVerdict::Skip);
  EXPECT_NE(problem.reason.en.find("stub"), std::string::npos) << problem.reason.en;
  EXPECT_NE(problem.error.find("sim-nvidia-stub/libcuda.so.1"), std::string::npos) << problem.error;
}

TEST(DriverInit, TheToolkitStubIsASkipNotACrash) {
  if (!HaveStub()) GTEST_SKIP() << "no CUDA toolkit stub";
  LibrarySearchPaths paths;
  paths.ld_library_path = {kStubFolder};
  DriverProblem problem;
  std::unique_ptr<CudaDriver> driver = CudaDriver::Load(paths, &problem);
  EXPECT_EQ(driver, nullptr);
  EXPECT_EQ(problem.verdict, DriverVerdict::Skip);
  EXPECT_NE(problem.error.find("CUDA_ERROR_STUB_LIBRARY (34)"), std::string::npos) << problem.error;
  EXPECT_NE(problem.hint.en.find("LD_LIBRARY_PATH"), std::string::npos);
}

TEST(DriverInit, NoDriverAtAllIsASkip) {
  LibrarySearchPaths paths;  // nothing but the loader, which on a machine without a driver finds none
  DriverProblem problem;
  std::unique_ptr<CudaDriver> driver = CudaDriver::Load(paths, &problem);
  if (driver) GTEST_SKIP() << "this machine has a working CUDA driver";
  EXPECT_EQ(problem.verdict, DriverVerdict::Skip);
}

TEST(InventoryChild, StubDriverGivesASkipEnvelopeThroughTheRealBinary) {
  if (!HaveStub()) GTEST_SKIP() << "no CUDA toolkit stub";
  ChildJobOutcome outcome = RunChildJob(LAB_CHECK_BINARY, kInventoryJob, {}, 60, CancelToken::Never(),
                                        {{"LD_LIBRARY_PATH", kStubFolder}});
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.status().message();
  EXPECT_EQ(outcome.result.value().value("outcome", ""), "skip");
  EXPECT_NE(outcome.result.value()["reason"].value("en", "").find("stub"), std::string::npos);
}

TEST(InventoryCheck, StubDriverSkipsTheCheckAndTheOthersFollowWithoutRunning) {
  if (!HaveStub()) GTEST_SKIP() << "no CUDA toolkit stub";
  ScopedEnv env("LD_LIBRARY_PATH", kStubFolder);
  Registry registry;
  RegisterGpuChecks(registry);
  ASSERT_EQ(registry.checks().size(), 8u);
  EXPECT_EQ(registry.checks()[0].id, "gpu.inventory");
  EXPECT_EQ(registry.checks()[1].id, "gpu.health");  // right after the inventory, before the load
  EXPECT_EQ(registry.checks()[4].id, "gpu.memtest");  // after the bandwidth, before the copies
  EXPECT_EQ(registry.checks()[7].id, "interconnect.allreduce");
  EXPECT_TRUE(registry.checks()[7].distributed);

  RunOptions options;
  options.self_exe = LAB_CHECK_BINARY;
  std::vector<CheckResult> earlier;
  CancelToken cancel = CancelToken::Never();
  CheckContext inventory_context(options, earlier, cancel, registry.checks()[0], nullptr);
  CheckResult inventory = kInventoryCheck.run(inventory_context);
  EXPECT_EQ(inventory.outcome, Outcome::Skip);
  EXPECT_NE(inventory.hint.en.find("stubs"), std::string::npos);
  inventory.id = "gpu.inventory";
  earlier.push_back(inventory);
  CheckContext matmul_context(options, earlier, cancel, registry.checks()[2], nullptr);
  CheckResult matmul = kMatmulCheck.run(matmul_context);
  EXPECT_EQ(matmul.outcome, Outcome::Skip);
  EXPECT_EQ(matmul.reason.en, inventory.reason.en);
}

TEST(LiveGpus, NoUsableDriverMeansNoGpusNotAnError) {
  if (!HaveStub()) GTEST_SKIP() << "no CUDA toolkit stub";
  ScopedEnv env("LD_LIBRARY_PATH", kStubFolder);
  Result<std::vector<LiveGpuBrief>> gpus = ReadLiveGpus(LAB_CHECK_BINARY, 60);
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  EXPECT_TRUE(gpus->empty());
}

TEST(LiveGpus, ABinaryThatCannotRunIsAnError) {
  Result<std::vector<LiveGpuBrief>> gpus = ReadLiveGpus("/nonexistent/lab_check", 5);
  EXPECT_FALSE(gpus.ok());
}

TEST(Envelope, ParentReadsCrashesTimeoutsAndSkips) {
  ChildJobOutcome timed_out;
  timed_out.process.started = true;
  timed_out.process.timed_out = true;
  timed_out.result = Status::Error("timed out after 30 s");
  std::optional<CheckResult> hung = EnvelopeProblem("gpu.matmul", timed_out);
  ASSERT_TRUE(hung);
  EXPECT_EQ(hung->outcome, Outcome::Fail);
  EXPECT_FALSE(hung->hint.en.empty());

  ChildJobOutcome crashed;
  crashed.process.started = true;
  crashed.process.term_signal = 11;
  crashed.result = Status::Error("killed by SIGSEGV");
  std::optional<CheckResult> crash = EnvelopeProblem("gpu.matmul", crashed);
  ASSERT_TRUE(crash);
  EXPECT_EQ(crash->outcome, Outcome::Fail);
  EXPECT_NE(crash->hint.en.find("driver"), std::string::npos);

  ChildJobOutcome skipped;
  skipped.result = SkipEnvelope(T("нет", "none"), T("подсказка", "hint"), "raw");
  std::optional<CheckResult> skip = EnvelopeProblem("gpu.matmul", skipped);
  ASSERT_TRUE(skip);
  EXPECT_EQ(skip->outcome, Outcome::Skip);
  EXPECT_EQ(skip->reason.ru, "нет");
  EXPECT_EQ(skip->error, "raw");

  ChildJobOutcome fine;
  fine.result = OkEnvelope();
  EXPECT_FALSE(EnvelopeProblem("gpu.matmul", fine).has_value());
}

}  // namespace
}  // namespace labcheck::gpu
