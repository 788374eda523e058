// The matmul figures on simulated machines, as a real card would make them wrong: clocks that come
// up under load (core/clock_ramp.h), FP8 slower without fast accumulation, FP8 layouts the real
// cuBLASLt refuses, and a cuBLASLt 13 that has no kernels for a Volta card.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "gpu/nvidia/cublaslt_library.h"
#include "gpu/nvidia/cuda_driver.h"
#include "scenario_support.h"

namespace labcheck::sim {
namespace {

using nlohmann::json;
using namespace labcheck::gpu;

const json& Figure(const json& job, int gpu, const char* precision) { return job["gpus"][gpu]["figures"][precision]; }

void ExpectTflops(const json& job, int gpu, const char* precision, double expected) {
  const json& figure = Figure(job, gpu, precision);
  ASSERT_TRUE(figure.contains("tflops")) << precision << ": " << figure.dump();
  EXPECT_NEAR(figure["tflops"].get<double>(), expected, expected * 0.05) << precision << ": " << figure.dump();
}

// --quick on one H200 whose clocks take 300 ms of work to come up: a figure taken after a count of
// calls is the ramp (~70 % of the card); one taken after the clocks settled is the card.
TEST(SimMatmul, QuickFigureIsTakenAfterTheClocksSettle) {
  const json job = RunChildJob("single-h200.json", "gpu-matmul", {"--quick"});
  ASSERT_TRUE(job.is_object());
  ExpectTflops(job, 0, "bf16", 740);
  const json& warmup = Figure(job, 0, "bf16")["warmup"];
  EXPECT_TRUE(warmup.value("settled", false)) << warmup.dump();
  EXPECT_GE(warmup.value("device_ms", 0.0), 300.0) << "the ramp is 300 ms: settling cannot come sooner";
  EXPECT_LT(warmup.value("device_ms", 0.0), 1000.0) << warmup.dump();
}

// The full run on a card whose heuristic's first choice is not the fastest: the top four are
// timed, which only picks the right one once the clocks stopped rising (timed during the ramp,
// whichever runs last looks fastest: here the slowest). FP8 is measured with fast accumulation.
TEST(SimMatmul, FullRunPicksTheFastestAlgorithmOnceWarm) {
  const TempProfile profile("course-4x4080.json", R"("description": "one course card, algorithms 4 % apart",
      "gpus": [{"pci_bus_id": "0000:01:00.0"}], "cublaslt": {"algo_rates": [0.96, 1.0, 0.93, 0.90]})");
  const json job = RunChildJob(profile.path(), "gpu-matmul");
  ASSERT_TRUE(job.is_object());
  ExpectTflops(job, 0, "bf16", 75.0);
  ExpectTflops(job, 0, "fp16", 75.5);
  ExpectTflops(job, 0, "tf32", 37.0);
  ExpectTflops(job, 0, "fp8", 150.0);
  EXPECT_EQ(Figure(job, 0, "bf16").value("algos_timed", 0), 4);
}

// FP8 as the quoted peaks are measured: with CUBLASLT_MATMUL_DESC_FAST_ACCUM the H200 does its
// 1300 TFLOPS; without it (the sim models Hopper's periodic FP32 promotion) 15 % less.
TEST(SimMatmul, Fp8IsMeasuredWithFastAccumulation) {
  const json job = RunChildJob("single-h200.json", "gpu-matmul");
  ASSERT_TRUE(job.is_object());
  ExpectTflops(job, 0, "fp8", 1300);
  EXPECT_TRUE(Figure(job, 0, "fp8").value("fast_accumulation", false)) << Figure(job, 0, "fp8").dump();
  ExpectTflops(job, 0, "bf16", 740);
  ExpectTflops(job, 0, "fp16", 750);
  ExpectTflops(job, 0, "tf32", 380);
  EXPECT_TRUE(Figure(job, 0, "fp8")["check"].value("ok", false));
}

// A V100 under driver 580 with both cuBLASLt 13 and 12 installed: 13 has no Volta kernels
// (cublasLtCreate → CUBLAS_STATUS_ARCH_MISMATCH), so 12 is taken; BF16, TF32 and FP8 are N/A
// (Volta has none of them) and FP16 is measured.
TEST(SimMatmul, VoltaCardUsesCublasLt12) {
  const json job = RunChildJob("old-card-v100.json", "gpu-matmul");
  ASSERT_TRUE(job.is_object());
  for (const char* absent : {"bf16", "tf32", "fp8"})
    EXPECT_TRUE(Figure(job, 0, absent).contains("skipped")) << absent << ": " << Figure(job, 0, absent).dump();
  ExpectTflops(job, 0, "fp16", 105);
  const std::string libraries = job["libraries"].dump();
  EXPECT_NE(libraries.find("libcublasLt.so.12"), std::string::npos) << libraries;
  EXPECT_EQ(libraries.find("libcublasLt.so.13"), std::string::npos) << libraries;
}

// The same machine through the whole program: the matmul check passes on its FP16 figure (--quick
// measures FP16 where there is no BF16) and the libraries table says why cuBLASLt 13 was not used.
TEST(SimMatmul, VoltaCardReportSaysWhyCublasLt13WasPassedOver) {
  SimRun run = RunLabCheck({"old-card-v100.json", {"--quick", "--only", "gpu.matmul"}});
  ASSERT_TRUE(run.report.is_object()) << run.stderr_text;
  EXPECT_EQ(Verdict(run, "gpu.matmul"), "PASS") << CheckText(run, "gpu.matmul");
  const std::optional<double> fp16 = Measured(run, "gpu0.matmul_fp16_tflops");
  ASSERT_TRUE(fp16.has_value()) << CheckText(run, "gpu.matmul");
  EXPECT_NEAR(*fp16, 105, 105 * 0.05);
  EXPECT_NE(CheckText(run, "gpu.matmul").find("FP16"), std::string::npos) << CheckText(run, "gpu.matmul");
  const std::string inventory = CheckText(run, "gpu.inventory");
  EXPECT_NE(inventory.find("libcublasLt.so.13"), std::string::npos) << inventory;
  EXPECT_NE(inventory.find("7.0"), std::string::npos) << inventory;
}

// --- the sim's cuBLASLt as strict as the real one, through our own loader, in a child process
// (the profile is read once per process) -------------------------------------------------------

// Runs `body` in a child process on `machine` with GPU 0's context current; its exit code.
int InChild(const std::string& machine, const std::function<int(const CudaDriver&)>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string path =
        machine.rfind('/', 0) == 0 ? machine : std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/" + machine;
    setenv("LABCHECK_SIM_MACHINE", path.c_str(), 1);
    DriverProblem problem;
    std::unique_ptr<CudaDriver> driver = CudaDriver::Load(SimPaths(), &problem);
    if (!driver) _exit(90);
    const auto& cu = driver->api();
    cuda::CUdevice device = 0;
    cuda::CUcontext context = nullptr;
    if (cu.cuDeviceGet(&device, 0) != 0 || cu.cuDevicePrimaryCtxRetain(&context, device) != 0 ||
        cu.cuCtxSetCurrent(context) != 0)
      _exit(91);
    _exit(body(*driver));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The heuristic's answer for an FP8 E4M3 GEMM m×n×k with these transposes (D in BF16).
cublaslt::cublasStatus_t Fp8Heuristic(const CublasLt& lt, int transa, int transb, uint64_t m, uint64_t n, uint64_t k,
                                      int* returned) {
  using namespace cublaslt;
  const CublasLtApi& api = lt.api();
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  if (api.cublasLtCreate(&handle) != kStatusSuccess || api.cublasLtMatmulDescCreate(&desc, kCompute32F, kR32F) != 0 ||
      api.cublasLtMatmulPreferenceCreate(&preference) != 0)
    return -1;
  api.cublasLtMatmulDescSetAttribute(desc, kMatmulDescTransA, &transa, sizeof transa);
  api.cublasLtMatmulDescSetAttribute(desc, kMatmulDescTransB, &transb, sizeof transb);
  // Column-major, as stored: op(A) is m×k, op(B) is k×n.
  api.cublasLtMatrixLayoutCreate(&a, kR8FE4M3, transa ? k : m, transa ? m : k, static_cast<int64_t>(transa ? k : m));
  api.cublasLtMatrixLayoutCreate(&b, kR8FE4M3, transb ? n : k, transb ? k : n, static_cast<int64_t>(transb ? n : k));
  api.cublasLtMatrixLayoutCreate(&d, kR16BF, m, n, static_cast<int64_t>(m));
  cublasLtMatmulHeuristicResult_t results[4] = {};
  *returned = -1;
  const cublasStatus_t status = api.cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, d, d, preference, 4, results, returned);
  api.cublasLtMatmulPreferenceDestroy(preference);
  for (cublasLtMatrixLayout_t l : {a, b, d}) api.cublasLtMatrixLayoutDestroy(l);
  api.cublasLtMatmulDescDestroy(desc);
  api.cublasLtDestroy(handle);
  return status;
}

// cublasLtMatmul's FP8 requirements below compute capability 10.0: "TN" only, dimensions
// multiples of 16. Anything else gets no algorithm (CUBLAS_STATUS_NOT_SUPPORTED), as the real one.
TEST(SimCublasLt, Fp8OtherThanTnOrUnalignedHasNoAlgorithm) {
  const int code = InChild("single-h200.json", [](const CudaDriver& driver) {
    Result<std::unique_ptr<CublasLt>> lt = CublasLt::Load(SimPaths(), driver.version(), 90);
    if (!lt.ok()) return 10;
    int returned = 0;
    if (Fp8Heuristic(**lt, 1, 0, 256, 256, 256, &returned) != cublaslt::kStatusSuccess || returned < 1) return 11;
    for (auto [transa, transb] : {std::pair{0, 0}, std::pair{0, 1}, std::pair{1, 1}})
      if (Fp8Heuristic(**lt, transa, transb, 256, 256, 256, &returned) != cublaslt::kStatusNotSupported || returned != 0)
        return 20 + transa * 2 + transb;
    if (Fp8Heuristic(**lt, 1, 0, 264, 256, 256, &returned) != cublaslt::kStatusNotSupported || returned != 0) return 30;
    if (Fp8Heuristic(**lt, 1, 0, 256, 256, 200, &returned) != cublaslt::kStatusNotSupported || returned != 0) return 31;
    return 0;
  });
  EXPECT_EQ(code, 0) << "10 load, 11 TN refused, 2x a non-TN layout accepted, 3x an unaligned size accepted";
}

// FP8 needs compute capability 8.9: an A100 (8.0) has no FP8 kernel at all.
TEST(SimCublasLt, Fp8NeedsAda) {
  const TempProfile a100("single-h200.json", R"("gpu_defaults": {"name": "NVIDIA A100-SXM4-80GB", "cc": "8.0"})");
  const int code = InChild(a100.path(), [](const CudaDriver& driver) {
    Result<std::unique_ptr<CublasLt>> lt = CublasLt::Load(SimPaths(), driver.version(), 80);
    if (!lt.ok()) return 10;
    int returned = 0;
    return Fp8Heuristic(**lt, 1, 0, 256, 256, 256, &returned) == cublaslt::kStatusNotSupported && returned == 0 ? 0 : 11;
  });
  EXPECT_EQ(code, 0);
}

// cuBLASLt 13 on a compute capability 7.0 card refuses the handle; our loader, told the oldest
// card, passes it over for cuBLASLt 12 and says so.
TEST(SimCublasLt, Cublas13RefusesVoltaAndTheLoaderTakes12) {
  const int code = InChild("old-card-v100.json", [](const CudaDriver& driver) {
    Result<std::unique_ptr<CublasLt>> unaware = CublasLt::Load(SimPaths(), driver.version());
    if (!unaware.ok() || (*unaware)->VersionText().rfind("13.", 0) != 0) return 10;
    cublaslt::cublasLtHandle_t handle = nullptr;
    if ((*unaware)->api().cublasLtCreate(&handle) != cublaslt::kStatusArchMismatch) return 11;
    Result<std::unique_ptr<CublasLt>> lt = CublasLt::Load(SimPaths(), driver.version(), 70);
    if (!lt.ok() || (*lt)->VersionText().rfind("12.", 0) != 0) return 12;
    if ((*lt)->passed_over().size() != 1 || (*lt)->passed_over()[0].library_major != 13 ||
        (*lt)->passed_over()[0].min_compute_capability != 75)
      return 13;
    if ((*lt)->api().cublasLtCreate(&handle) != cublaslt::kStatusSuccess) return 14;
    (*lt)->api().cublasLtDestroy(handle);
    return 0;
  });
  EXPECT_EQ(code, 0) << "10 no cuBLASLt 13 first, 11 it accepted a Volta card, 12 no fallback to 12, 13 not reported, 14 12 refused";
}

}  // namespace
}  // namespace labcheck::sim
