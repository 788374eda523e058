// The SKIP and FAIL paths without a GPU: the real stub libcuda from the CUDA toolkit, no driver at
// all, and what the parent makes of a child that crashed or timed out.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/gpu_checks.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/live_gpus.h"
#include "gpu/nvidia/cuda_driver.h"

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
  ASSERT_EQ(registry.checks().size(), 7u);
  EXPECT_EQ(registry.checks()[0].id, "gpu.inventory");
  EXPECT_EQ(registry.checks()[1].id, "gpu.health");  // right after the inventory, before the load
  EXPECT_EQ(registry.checks()[6].id, "interconnect.allreduce");
  EXPECT_TRUE(registry.checks()[6].distributed);

  RunOptions options;
  options.self_exe = LAB_CHECK_BINARY;
  std::vector<CheckResult> earlier;
  CancelToken cancel = CancelToken::Never();
  CheckContext inventory_context(options, earlier, cancel, registry.checks()[0], nullptr);
  CheckResult inventory = RunInventoryCheck(inventory_context);
  EXPECT_EQ(inventory.outcome, Outcome::Skip);
  EXPECT_NE(inventory.hint.en.find("stubs"), std::string::npos);
  inventory.id = "gpu.inventory";
  earlier.push_back(inventory);
  CheckContext matmul_context(options, earlier, cancel, registry.checks()[2], nullptr);
  CheckResult matmul = RunMatmulCheck(matmul_context);
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
