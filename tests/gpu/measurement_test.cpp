// The measurement logic on in-process fakes of NVIDIA's tables (fake_nvidia.h): each test here
// fails on the defect it is named after (issue 11, item 3), without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/units.h"
#include "fake_nvidia.h"
#include "gpu/bench/copy_bench.h"
#include "gpu/bench/matmul_bench.h"
#include "gpu/bench/nvml_sampler.h"
#include "gpu/collective/allreduce_bench.h"
#include "gpu/collective/allreduce_math.h"
#include "gpu/jobs/job_bodies.h"
#include "gpu/nvidia/nvml_library.h"
#include "gpu/topology_reader.h"

namespace labcheck::gpu {
namespace {

using fake::FakeMachine;

std::unique_ptr<CudaDriver> FakeDriver() { return CudaDriver::FromApi(fake::FakeCudaApi(), 13000); }
std::unique_ptr<Nvml> FakeNvml() { return Nvml::FromApi(fake::FakeNvmlApi()); }

std::vector<nvml::nvmlDevice_t> Handles(int count) {
  std::vector<nvml::nvmlDevice_t> handles;
  for (int i = 0; i < count; ++i) handles.push_back(fake::FakeNvmlDevice(i));
  return handles;
}
std::vector<std::string> BusIds() {
  std::vector<std::string> ids;
  for (const fake::FakeGpu& g : FakeMachine::Get().gpus) ids.push_back(CanonicalPciBusId(g.bus_id));
  return ids;
}

// --- NVLink -----------------------------------------------------------------------------------

void EveryLinkToASwitch(int links) {
  for (fake::FakeGpu& g : FakeMachine::Get().gpus) g.nvlink_remote.assign(links, -1);
}

TEST(NvLinkTopology, LinksThroughNvSwitchCountForEveryPair) {
  FakeMachine::Reset(4);
  EveryLinkToASwitch(18);  // HGX H100: 18 links per GPU, all to NVSwitches
  const nvml::NvmlApi api = fake::FakeNvmlApi();
  TopologyInput input = ReadNvmlTopology(api, Handles(4), BusIds());
  EXPECT_TRUE(AnyNvLink(input));
  auto matrix = TopologyMatrix(input);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(matrix[i][j], i == j ? "X" : "NV18") << i << "," << j;
}

TEST(NvLinkTopology, FallsBackWhenTheDeviceTypeOrTheP2PQueryIsMissing) {
  FakeMachine& m = FakeMachine::Reset(2);
  EveryLinkToASwitch(12);
  m.nvml_has_remote_device_type = false;  // far end unknown, the P2P status decides
  EXPECT_EQ(TopologyMatrix(ReadNvmlTopology(fake::FakeNvmlApi(), Handles(2), BusIds()))[0][1], "NV12");
  m.nvml_has_remote_device_type = true;
  m.nvml_has_p2p_status = false;  // switch links on both GPUs: one fabric
  EXPECT_EQ(TopologyMatrix(ReadNvmlTopology(fake::FakeNvmlApi(), Handles(2), BusIds()))[0][1], "NV12");
  m.nvml_has_remote_device_type = false;  // neither query: links to no local GPU say nothing
  EXPECT_EQ(TopologyMatrix(ReadNvmlTopology(fake::FakeNvmlApi(), Handles(2), BusIds()))[0][1], "PHB");
}

TEST(NvLinkTopology, DirectLinksAndLinksPastEighteen) {
  FakeMachine& m = FakeMachine::Reset(3);
  // GPU0↔GPU1 bridged with 4 links, numbered from 30 (NVML 13.3: up to 36 links per GPU).
  m.gpus[0].nvlink_remote.assign(34, -2);  // -2: inactive placeholder below
  m.gpus[1].nvlink_remote.assign(34, -2);
  for (int link = 30; link < 34; ++link) {
    m.gpus[0].nvlink_remote[link] = 1;
    m.gpus[1].nvlink_remote[link] = 0;
  }
  nvml::NvmlApi api = fake::FakeNvmlApi();
  // Links marked -2 are reported inactive.
  api.nvmlDeviceGetNvLinkState = [](nvml::nvmlDevice_t d, unsigned link, nvml::nvmlEnableState_t* active) {
    const fake::FakeGpu& g = FakeMachine::Get().gpus.at(reinterpret_cast<uintptr_t>(d) - 1);
    if (link >= g.nvlink_remote.size()) return nvml::kErrorNotSupported;
    *active = g.nvlink_remote[link] == -2 ? 0 : nvml::kFeatureEnabled;
    return nvml::kSuccess;
  };
  EXPECT_EQ(nvml::kNvLinkMaxLinks, 36u);
  auto matrix = TopologyMatrix(ReadNvmlTopology(api, Handles(3), BusIds()));
  EXPECT_EQ(matrix[0][1], "NV4");
  EXPECT_EQ(matrix[1][0], "NV4");
  EXPECT_EQ(matrix[0][2], "PHB");
}

// --- NVML queries -----------------------------------------------------------------------------

TEST(NvmlQueries, TemperaturePrefersTheVersionedCallAndFallsBack) {
  FakeMachine& m = FakeMachine::Reset(1);
  EXPECT_EQ(ReadGpuTemperature(fake::FakeNvmlApi(), fake::FakeNvmlDevice(0)), std::optional<unsigned>(56));
  EXPECT_EQ(m.Count("nvmlDeviceGetTemperature"), 0);
  m.nvml_has_temperature_v = false;  // an older driver
  EXPECT_EQ(ReadGpuTemperature(fake::FakeNvmlApi(), fake::FakeNvmlDevice(0)), std::optional<unsigned>(55));
}

TEST(NvmlSampler, SamplesAtIdleGiveNoUnderLoadFigures) {
  FakeMachine::Reset(1);
  std::unique_ptr<Nvml> nvml = FakeNvml();
  NvmlSampler idle(nvml.get(), fake::FakeNvmlDevice(0), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  NvmlSamples none = idle.Stop();
  EXPECT_EQ(none.count, 0);
  EXPECT_GT(none.idle_count, 0);
  EXPECT_FALSE(none.pcie_gen_under_load.has_value());

  NvmlSampler loaded(nvml.get(), fake::FakeNvmlDevice(0), 60000);
  FakeMachine::Get().busy = true;
  loaded.SetBusy(true);
  loaded.SampleNow();
  NvmlSamples one = loaded.Stop();
  EXPECT_EQ(one.count, 1);
  EXPECT_EQ(one.pcie_gen_under_load, std::optional<unsigned>(4));
}

// --- copies -----------------------------------------------------------------------------------

struct CopyRig {
  std::unique_ptr<CudaDriver> driver = FakeDriver();
  std::unique_ptr<Nvml> nvml = FakeNvml();
  std::shared_ptr<DeviceContext> context;
  CopyRig() { context = *DeviceContext::Open(*driver, 0); }
};

TEST(CopyBench, AllAtOnceMeetsAfterSetupAndWarmUp) {
  FakeMachine& m = FakeMachine::Reset(1);
  CopyRig rig;
  int met_at = -1;
  CopyPlan plan{4 * kMiB, 3, 5};
  Result<CopyFigure> figure =
      MeasureDeviceCopy(*rig.context, plan, nullptr, nullptr, [&] { met_at = static_cast<int>(m.calls.size()); });
  ASSERT_TRUE(figure.ok()) << figure.status().message();
  ASSERT_GE(met_at, 0);
  EXPECT_LT(m.Last("cuMemAlloc"), met_at);
  EXPECT_LT(m.Last("cuMemsetD32"), met_at);
  int copies_before = 0;
  for (int i = 0; i < met_at; ++i) copies_before += m.calls[i] == "cuMemcpyDtoDAsync";
  EXPECT_EQ(copies_before, plan.warmup);  // the warm-up ran before the threads met
  EXPECT_GE(m.First("cuEventRecord"), met_at);  // every timed copy after
}

TEST(CopyBench, SetupIsFinishedBeforeTheMeasurementStreamStarts) {
  FakeMachine& m = FakeMachine::Reset(1);
  CopyRig rig;
  ASSERT_TRUE(MeasureDeviceCopy(*rig.context, {4 * kMiB, 1, 2}, nullptr, nullptr).ok());
  // cuMemsetD32 runs on the default stream; the copies on a non-blocking one do not wait for it.
  EXPECT_GT(m.First("cuCtxSynchronize"), m.Last("cuMemsetD32"));
  EXPECT_LT(m.First("cuCtxSynchronize"), m.First("cuMemcpyDtoDAsync"));
}

TEST(CopyBench, PageableCopiesAreTimedOnTheDeviceNotByTheReturnOfTheCall) {
  FakeMachine& m = FakeMachine::Reset(1);
  m.gpus[0].latency_ms = 0;
  CopyRig rig;
  // The fake returns from every copy at once, as pageable H2D may before its DMA ends: only
  // timing on the stream gives the modelled 12 and 10 GB/s.
  HostBufferPool buffers(*rig.driver);
  for (auto [direction, want] : {std::pair{CopyDirection::HostToDevice, 12.0}, std::pair{CopyDirection::DeviceToHost, 10.0}}) {
    Result<CopyFigure> figure =
        MeasureHostCopy(*rig.context, HostMemory::Pageable, direction, {8 * kMiB, 1, 3}, buffers, {}, nullptr, nullptr);
    ASSERT_TRUE(figure.ok()) << figure.status().message();
    EXPECT_NEAR(figure->gbps, want, want * 0.01);
  }
  Result<CopyFigure> pinned =
      MeasureHostCopy(*rig.context, HostMemory::Pinned, CopyDirection::HostToDevice, {8 * kMiB, 1, 3}, buffers, {}, nullptr, nullptr);
  ASSERT_TRUE(pinned.ok());
  EXPECT_NEAR(pinned->gbps, 25.0, 0.25);
}

TEST(CopyBench, HostBuffersArePinnedOncePerJobAndLentOneToEachThread) {
  FakeMachine& m = FakeMachine::Reset(1);
  CopyRig rig;
  HostBufferPool buffers(*rig.driver);
  for (CopyDirection direction : {CopyDirection::HostToDevice, CopyDirection::DeviceToHost, CopyDirection::HostToDevice})
    ASSERT_TRUE(MeasureHostCopy(*rig.context, HostMemory::Pinned, direction, {4 * kMiB, 1, 1}, buffers, {}, nullptr, nullptr).ok());
  EXPECT_EQ(m.Count("cuMemHostAlloc"), 1);
  EXPECT_EQ(buffers.allocations(), 1u);
  // Two leases at once (two GPUs' threads) get two buffers; a third after they end reuses one.
  {
    Result<HostBufferPool::Lease> first = buffers.Take(HostMemory::Pinned, 4 * kMiB);
    Result<HostBufferPool::Lease> second = buffers.Take(HostMemory::Pinned, 4 * kMiB);
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_NE(first->get(), second->get());
  }
  ASSERT_TRUE(buffers.Take(HostMemory::Pinned, 4 * kMiB).ok());
  ASSERT_TRUE(buffers.Take(HostMemory::Pageable, 4 * kMiB).ok());  // another kind: its own buffer
  EXPECT_EQ(buffers.allocations(), 3u);
  EXPECT_EQ(m.Count("cuMemHostAlloc"), 2);
}

TEST(CopyBench, TheLinkUnderLoadIsReadWhileTheCopiesRun) {
  FakeMachine::Reset(1);  // the fake's link idles at PCIe 1.0 and runs 4.0 while work is queued
  CopyRig rig;
  CopyPlan plan{4 * kMiB, 1, 1};
  plan.nvml_period_ms = 60000;  // no timed samples: only the one taken while the copy is queued
  HostBufferPool buffers(*rig.driver);
  Result<CopyFigure> figure = MeasureHostCopy(*rig.context, HostMemory::Pinned, CopyDirection::HostToDevice, plan,
                                              buffers, {}, rig.nvml.get(), fake::FakeNvmlDevice(0));
  ASSERT_TRUE(figure.ok()) << figure.status().message();
  EXPECT_GE(figure->nvml.count, 1);
  EXPECT_EQ(figure->nvml.pcie_gen_under_load, std::optional<unsigned>(4));
}

// --- whole child jobs on the fake machine -----------------------------------------------------

std::unique_ptr<GpuRuntime> FakeRuntime() { return GpuRuntime::FromParts(FakeDriver(), FakeNvml()); }

TEST(CopyJobs, EachPrimaryContextIsRetainedOncePerJob) {
  FakeMachine& m = FakeMachine::Reset(2);
  {
    std::unique_ptr<GpuRuntime> runtime = FakeRuntime();
    nlohmann::json out = HostCopyJobOn(*runtime, ParseJobArgs({"--copy-mib", "1"}));
    ASSERT_EQ(out.value("outcome", ""), "ok") << out.dump();
    ASSERT_TRUE(out["gpus"][1]["d2h_pageable"].contains("gbps")) << out.dump();
    ASSERT_TRUE(out["concurrent"]["h2d_pinned"][1].contains("gbps")) << out.dump();
    EXPECT_EQ(m.retained, 2);  // not once per variant and GPU
    EXPECT_EQ(m.released, 0);
  }
  EXPECT_EQ(m.released, 2);
}

TEST(PeerJob, AsksWithDeviceHandlesAndSaysUnknownWhenTheQueryFails) {
  FakeMachine& m = FakeMachine::Reset(2);
  m.peer = {{false, true}, {false, false}};
  std::unique_ptr<GpuRuntime> runtime = FakeRuntime();
  nlohmann::json out = PeerJobOn(*runtime, ParseJobArgs({"--quick", "--copy-mib", "1"}));
  ASSERT_EQ(out.value("outcome", ""), "ok") << out.dump();
  EXPECT_EQ(out["can_access"][0][1], true);  // ordinals 0 and 1 are no CUdevice handles here
  EXPECT_EQ(out["can_access"][1][0], false);
  EXPECT_TRUE(out["pairs"][0].contains("with_peer"));

  m.fail_can_access_peer = true;
  out = PeerJobOn(*runtime, ParseJobArgs({"--quick", "--copy-mib", "1"}));
  EXPECT_TRUE(out["can_access"][0][1].is_null());  // unknown, not "no"
  ASSERT_FALSE(out["can_access_errors"].empty());
  EXPECT_NE(out["can_access_errors"][0].get<std::string>().find("cuDeviceCanAccessPeer"), std::string::npos);
}

// --- all-reduce -------------------------------------------------------------------------------

TEST(AllReduce, TimedWithEventsOnEachRankNotTheHostsPolling) {
  FakeMachine& m = FakeMachine::Reset(2);
  for (fake::FakeGpu& g : m.gpus) g.latency_ms = 0;
  m.stream_query_not_ready = 3;  // the host polls (and sleeps) a few times per wait
  std::unique_ptr<CudaDriver> driver = FakeDriver();
  std::unique_ptr<Nccl> nccl = Nccl::FromApi(fake::FakeNcclApi());
  RankGroup group;
  group.world_size = 2;
  std::vector<nccl::ncclComm_t> comms(2);
  std::vector<int> devices = {0, 1};
  ASSERT_EQ(nccl->api().ncclCommInitAll(comms.data(), 2, devices.data()), nccl::kSuccess);
  for (int i = 0; i < 2; ++i) {
    LocalRank rank;
    rank.rank = i;
    rank.context = *DeviceContext::Open(*driver, i);
    rank.comm = comms[i];
    group.local.push_back(std::move(rank));
  }
  ASSERT_TRUE(PrepareRanks(*driver, group, 1 * kMiB).ok());
  SweepPlan plan;
  plan.sizes_bytes = {1 * kMiB};
  plan.warmup = 1;
  plan.iterations = 4;
  SweepResult sweep = RunAllReduceSweep(*driver, *nccl, group, plan);
  ASSERT_EQ(sweep.sizes.size(), 1u) << sweep.nccl_error;
  EXPECT_TRUE(sweep.sizes[0].correct);
  // Modelled: 2(n−1)/n × 1 MiB at 40 GB/s per call = 0.0262 ms; so busbw reads 40 GB/s.
  ASSERT_TRUE(sweep.sizes[0].busbw_gbps.has_value());
  EXPECT_NEAR(*sweep.sizes[0].busbw_gbps, 40.0, 0.4);
  EXPECT_GT(sweep.sizes[0].host_time_us, 0);  // nccl-tests' clock too, whatever the host took
}

TEST(AllReduce, SizeCapFollowsTheGpuWithTheLeastFreeMemory) {
  FakeMachine& m = FakeMachine::Reset(3);
  m.gpus[2].free_bytes = 1ull << 30;  // another process holds most of GPU2
  std::unique_ptr<CudaDriver> driver = FakeDriver();
  RankGroup group;
  for (int i = 0; i < 3; ++i) {
    LocalRank rank;
    rank.context = *DeviceContext::Open(*driver, i);
    group.local.push_back(std::move(rank));
  }
  Result<size_t> smallest = SmallestFreeBytes(*driver, group);
  ASSERT_TRUE(smallest.ok()) << smallest.status().message();
  EXPECT_EQ(*smallest, 1ull << 30);
  cuda::CudaDriverApi broken = fake::FakeCudaApi();
  broken.cuMemGetInfo = [](size_t*, size_t*) { return cuda::kErrorInvalidValue; };
  std::unique_ptr<CudaDriver> failing = CudaDriver::FromApi(broken, 13000);
  for (LocalRank& rank : group.local) rank.context = *DeviceContext::Open(*failing, rank.context->ordinal());
  Result<size_t> unknown = SmallestFreeBytes(*failing, group);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("cuMemGetInfo"), std::string::npos);
}

// --- matmul -----------------------------------------------------------------------------------

TEST(MatmulBench, AFailedAttributeCallStopsThePlan) {
  FakeMachine& m = FakeMachine::Reset(1);
  m.fail_desc_set_attribute = 7;  // CUBLAS_STATUS_INVALID_VALUE
  std::unique_ptr<CudaDriver> driver = FakeDriver();
  std::unique_ptr<CublasLt> lt = CublasLt::FromApi(fake::FakeCublasLtApi());
  std::shared_ptr<DeviceContext> context = *DeviceContext::Open(*driver, 0);
  MatmulPlan plan;
  plan.size = 64;
  MatmulInputCache inputs(1);
  Result<std::unique_ptr<MatmulBench>> bench = MatmulBench::Prepare(*lt, *context, MatmulPrecision::BF16, plan, inputs);
  ASSERT_FALSE(bench.ok());
  EXPECT_NE(bench.status().message().find("cublasLtMatmulDescSetAttribute"), std::string::npos) << bench.status().message();
}

TEST(MatmulBench, AllAtOnceMeetsAfterTheWarmUp) {
  FakeMachine& m = FakeMachine::Reset(1);
  std::unique_ptr<CudaDriver> driver = FakeDriver();
  std::unique_ptr<CublasLt> lt = CublasLt::FromApi(fake::FakeCublasLtApi());
  std::shared_ptr<DeviceContext> context = *DeviceContext::Open(*driver, 0);
  MatmulPlan plan = MatmulPlan::Quick();
  plan.size = 64;
  MatmulInputCache inputs(1);
  Result<std::unique_ptr<MatmulBench>> bench = MatmulBench::Prepare(*lt, *context, MatmulPrecision::BF16, plan, inputs);
  ASSERT_TRUE(bench.ok()) << bench.status().message();
  EXPECT_GT(m.Last("cuCtxSynchronize"), m.Last("cuMemcpyHtoD"));  // inputs in place before the stream runs
  int met_at = -1;
  Result<MatmulFigure> figure = (*bench)->Run(nullptr, nullptr, [&] { met_at = static_cast<int>(m.calls.size()); });
  ASSERT_TRUE(figure.ok()) << figure.status().message();
  int calls_before = 0;
  for (int i = 0; i < met_at; ++i) calls_before += m.calls[i] == "cublasLtMatmul";
  // The warm-up is a time: at least warmup_min_ms of the fake's 1 ms calls, after the first call.
  const double call_ms = 1.0 + m.gpus[0].latency_ms;
  EXPECT_GE(calls_before, 1 + static_cast<int>(plan.warmup_min_ms / call_ms));
  EXPECT_GE(figure->warmup.device_ms, plan.warmup_min_ms);
  EXPECT_TRUE(figure->warmup.settled);  // the fake's calls never get faster
  EXPECT_NEAR(figure->call_ms.median, call_ms, 1e-3);  // the fake's modelled call
}

// The full plan warms up for longer than --quick, and both for a time, not a count of calls.
TEST(MatmulBench, WarmUpIsATimeLongerInTheFullRun) {
  const MatmulPlan full, quick = MatmulPlan::Quick();
  EXPECT_GE(full.warmup_min_ms, 200);
  EXPECT_GE(quick.warmup_min_ms, 50);
  EXPECT_LT(quick.warmup_min_ms, full.warmup_min_ms);
  EXPECT_GT(full.warmup_max_ms, full.warmup_min_ms);
  EXPECT_GT(quick.warmup_max_ms, quick.warmup_min_ms);
}

// FP8 is planned with CUBLASLT_MATMUL_DESC_FAST_ACCUM: one more descriptor attribute than BF16.
TEST(MatmulBench, Fp8SetsFastAccumulation) {
  auto attributes_for = [](MatmulPrecision precision) {
    FakeMachine& m = FakeMachine::Reset(1);
    std::unique_ptr<CudaDriver> driver = FakeDriver();
    std::unique_ptr<CublasLt> lt = CublasLt::FromApi(fake::FakeCublasLtApi());
    std::shared_ptr<DeviceContext> context = *DeviceContext::Open(*driver, 0);
    MatmulPlan plan = MatmulPlan::Quick();
    plan.size = 64;
    MatmulInputCache inputs(1);
    Result<std::unique_ptr<MatmulBench>> bench = MatmulBench::Prepare(*lt, *context, precision, plan, inputs);
    EXPECT_TRUE(bench.ok()) << bench.status().message();
    int count = 0;
    for (const std::string& call : m.calls) count += call == "cublasLtMatmulDescSetAttribute";
    return count;
  };
  EXPECT_EQ(attributes_for(MatmulPrecision::FP8), attributes_for(MatmulPrecision::BF16) + 1);
}

// Which cuBLASLt runs on which card: CUDA 13 dropped compute capability < 7.5, CUDA 12 < 5.0.
TEST(CublasLtLoading, MinimumComputeCapabilityPerMajor) {
  EXPECT_EQ(CublasLtMinComputeCapability(13), 75);
  EXPECT_EQ(CublasLtMinComputeCapability(12), 50);
  EXPECT_EQ(CublasLtMinComputeCapability(11), 35);
  EXPECT_EQ(CublasLtMinComputeCapability(14), 75);  // a later major drops more, never less
  EXPECT_EQ(CublasLtMinComputeCapability(10), 0);   // unknown: accepted
}

}  // namespace
}  // namespace labcheck::gpu
