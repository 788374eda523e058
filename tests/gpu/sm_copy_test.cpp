// The SM memory kernels: the embedded PTX assembled by the toolkit's own ptxas for the GPUs people
// train on (a PTX typo must not hide behind the simulator, which only parses), the grid they run
// on, and the memory job on a driver that cannot load kernels.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fake_nvidia.h"
#include "gpu/bench/copy_kernels_ptx.h"
#include "gpu/bench/sm_copy_bench.h"
#include "gpu/jobs/job_bodies.h"
#include "platform/files.h"
#include "ptxas.h"

namespace labcheck::gpu {
namespace {

namespace fs = std::filesystem;

using testing::Assemble;
using testing::Assembled;
using testing::FindPtxas;

TEST(SmCopyKernels, EmbeddedPtxAssemblesForEveryArchitectureWithoutSpillsOrWarnings) {
  const std::string ptxas = FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine: the PTX is checked by the simulator only";
  Result<std::string> dir = MakePrivateTempDir("labcheck_ptx");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  const std::string file = *dir + "/copy_kernels.ptx";
  std::ofstream(file) << kCopyKernelsPtx;
  for (const char* arch : {"sm_75", "sm_80", "sm_89", "sm_90"}) {
    const Assembled a = Assemble(ptxas, file, arch);
    EXPECT_EQ(a.exit_code, 0) << arch << ":\n" << a.output;
    EXPECT_EQ(a.output.find("warning"), std::string::npos) << arch << ":\n" << a.output;
    // Both kernels compiled, neither spilling registers to local memory (.maxnreg 32 must fit).
    for (const char* kernel : {kCopyKernelName, kTriadKernelName})
      EXPECT_NE(a.output.find(std::string("Function properties for ") + kernel), std::string::npos) << arch << a.output;
    size_t spills = 0;
    for (size_t at = 0; (at = a.output.find("0 bytes spill stores", at)) != std::string::npos; ++at) ++spills;
    EXPECT_EQ(spills, 2u) << arch << ":\n" << a.output;
  }
  RemoveTree(*dir);
}

TEST(SmCopyKernels, PtxIsTheOldIsaEveryDriverJits) {
  const std::string ptx = kCopyKernelsPtx;
  EXPECT_EQ(ptx.rfind(".version 4.1\n.target sm_52\n.address_size 64\n", 0), 0u) << ptx.substr(0, 80);
  EXPECT_NE(ptx.find(std::string(".entry ") + kCopyKernelName + "("), std::string::npos);
  EXPECT_NE(ptx.find(std::string(".entry ") + kTriadKernelName + "("), std::string::npos);
  EXPECT_NE(ptx.find("ld.global.v4.u32"), std::string::npos);  // 16-byte loads and stores
  EXPECT_NE(ptx.find("st.global.v4.u32"), std::string::npos);
  EXPECT_NE(ptx.find(".maxntid 256, 1, 1"), std::string::npos);
}

TEST(SmCopyKernels, OneFullWaveOnEverySm) {
  // H100 SXM: 132 SMs × 2048 threads; Ada: 1536; Turing: 1024.
  EXPECT_EQ(GridForEverySm(132, 2048).blocks, 132u * 8);
  EXPECT_EQ(GridForEverySm(76, 1536).blocks, 76u * 6);
  EXPECT_EQ(GridForEverySm(40, 1024).blocks, 40u * 4);
  EXPECT_EQ(GridForEverySm(40, 1024).threads_per_block, kKernelThreadsPerBlock);
  EXPECT_GE(GridForEverySm(0, 0).blocks, 1u);  // never an empty grid
}

TEST(SmCopyKernels, ADriverWithoutModulesStillMeasuresTheDriversCopy) {
  fake::FakeMachine::Reset(2);  // the fakes have no cuModuleLoadDataEx, as a driver without it
  std::unique_ptr<GpuRuntime> runtime =
      GpuRuntime::FromParts(CudaDriver::FromApi(fake::FakeCudaApi(), 13000), Nvml::FromApi(fake::FakeNvmlApi()));
  nlohmann::json out = MemoryJobOn(*runtime, ParseJobArgs({"--quick", "--copy-mib", "1"}));
  ASSERT_EQ(out.value("outcome", ""), "ok") << out.dump();
  for (const nlohmann::json& g : out["gpus"]) {
    EXPECT_TRUE(g.contains("gbps")) << g.dump();  // the driver's copy
    EXPECT_NE(g["sm_copy"].value("na", "").find("cuModuleLoadDataEx"), std::string::npos) << g.dump();
    EXPECT_TRUE(g["sm_triad"].contains("na")) << g.dump();
  }
}

}  // namespace
}  // namespace labcheck::gpu
