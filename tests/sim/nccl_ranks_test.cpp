// The NCCL sim across processes (one rank per process, ncclCommInitRank), through our own loader:
// the sum really crosses processes, NCCL_COMM_ID gives every rank the same id, and a rank that
// never arrives makes the others fail within the rendezvous timeout instead of hanging.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "gpu/collective/allreduce_math.h"
#include "gpu/nvidia/cuda_driver.h"
#include "gpu/nvidia/nccl_library.h"
#include "scenario_support.h"

namespace labcheck::sim {
namespace {

using namespace labcheck::gpu;

// How a rank puts its input in device memory before the all-reduce on its non-blocking stream.
enum class Upload {
  AsyncOnTheStream,      // cuMemcpyHtoDAsync on the collective's stream: ordered before it
  SyncThenCtxSynchronize,  // cuMemcpyHtoD, then cuCtxSynchronize: landed before the collective
  SyncOnly,              // cuMemcpyHtoD alone: its DMA may not have landed (a race on a real GPU)
};

// Exit codes of one rank: 0 sum right, 10+ the step that failed.
int RunRank(int rank, int ranks, size_t count, Upload upload = Upload::AsyncOnTheStream) {
  DriverProblem problem;
  std::unique_ptr<CudaDriver> driver = CudaDriver::Load(SimPaths(), &problem);
  if (!driver) return 10;
  auto nccl = Nccl::Load(SimPaths());
  if (!nccl.ok()) return 11;
  const auto& cu = driver->api();
  const auto& nc = (*nccl)->api();
  cuda::CUdevice device = 0;
  cuda::CUcontext context = nullptr;
  if (cu.cuDeviceGet(&device, rank) != 0 || cu.cuDevicePrimaryCtxRetain(&context, device) != 0 ||
      cu.cuCtxSetCurrent(context) != 0)
    return 12;
  nccl::ncclUniqueId id;
  if (nc.ncclGetUniqueId(&id) != 0) return 13;  // NCCL_COMM_ID: the same id on every rank
  nccl::ncclComm_t comm = nullptr;
  const int init = nc.ncclCommInitRank(&comm, ranks, id, rank);
  if (init == 6) return 20;  // ncclRemoteError: a rank did not arrive
  if (init != 0) return 14;
  cuda::CUdeviceptr send = 0, receive = 0;
  if (cu.cuMemAlloc(&send, count * 4) != 0 || cu.cuMemAlloc(&receive, count * 4) != 0) return 15;
  std::vector<float> input(count), output(count);
  for (size_t i = 0; i < count; ++i) input[i] = AllReduceInput(rank, i);
  cuda::CUstream stream = nullptr;
  if (cu.cuStreamCreate(&stream, 1) != 0) return 17;  // CU_STREAM_NON_BLOCKING
  const bool uploaded = upload == Upload::AsyncOnTheStream
                            ? cu.cuMemcpyHtoDAsync(send, input.data(), count * 4, stream) == 0
                            : cu.cuMemcpyHtoD(send, input.data(), count * 4) == 0 &&
                                  (upload == Upload::SyncOnly || cu.cuCtxSynchronize() == 0);
  if (!uploaded) return 16;
  if (nc.ncclAllReduce(reinterpret_cast<void*>(send), reinterpret_cast<void*>(receive), count, nccl::kFloat32,
                       nccl::kSum, comm, stream) != 0)
    return 18;
  nccl::ncclResult_t async = 0;
  nc.ncclCommGetAsyncError(comm, &async);
  if (async != 0) return 21;
  if (cu.cuStreamSynchronize(stream) != 0 || cu.cuMemcpyDtoH(output.data(), receive, count * 4) != 0) return 19;
  for (size_t i = 0; i < count; ++i)
    if (output[i] != AllReduceExpected(ranks, i)) return 30;
  nc.ncclCommDestroy(comm);
  return 0;
}

std::vector<int> RunRanks(int ranks, int present, const std::string& profile, Upload upload = Upload::AsyncOnTheStream) {
  std::vector<pid_t> pids;
  for (int r = 0; r < present; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("LABCHECK_SIM_MACHINE", profile.c_str(), 1);
      setenv("NCCL_COMM_ID", ("127.0.0.1:" + std::to_string(20000 + getppid() % 20000)).c_str(), 1);
      _exit(RunRank(r, ranks, 1000003, upload));
    }
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return codes;
}

std::string Profile(const std::string& extra) {
  const std::string path = "/tmp/nvsim-ranks-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << R"({"base": ")" << LAB_CHECK_SOURCE_DIR << R"(/tests/sim/machines/course-4x4080.json")" << extra << "}";
  return path;
}

TEST(SimNcclRanks, AllReduceSumsAcrossProcesses) {
  const std::string profile = Profile("");
  EXPECT_EQ(RunRanks(4, 4, profile), (std::vector<int>{0, 0, 0, 0}));
  std::remove(profile.c_str());
}

// A synchronous cuMemcpyHtoD from pageable memory returns before its DMA lands, and a
// CU_STREAM_NON_BLOCKING stream does not wait for the legacy stream that carries it (CUDA Driver
// API, "API synchronization behavior"): the sim lets the collective read the old bytes, as a real
// GPU may. Ordering the copy (same stream) or synchronising first gives the right sum.
TEST(SimNcclRanks, PageableCopyLandsOnlyForWhatIsOrderedAfterIt) {
  const std::string profile = Profile("");
  EXPECT_EQ(RunRanks(2, 2, profile, Upload::SyncOnly), (std::vector<int>{30, 30})) << "the collective saw unlanded bytes";
  EXPECT_EQ(RunRanks(2, 2, profile, Upload::SyncThenCtxSynchronize), (std::vector<int>{0, 0}));
  EXPECT_EQ(RunRanks(2, 2, profile, Upload::AsyncOnTheStream), (std::vector<int>{0, 0}));
  std::remove(profile.c_str());
}

TEST(SimNcclRanks, MissingRankTimesOut) {
  const std::string profile = Profile(R"(, "allreduce": {"rendezvous_timeout_s": 1})");
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(RunRanks(3, 2, profile), (std::vector<int>{20, 20}));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 20);
  std::remove(profile.c_str());
}

}  // namespace
}  // namespace labcheck::sim
