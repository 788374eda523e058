// The fake cuBLASLt (a fixed 1 ms per GEMM, the product not computed) and NCCL (all-reduce sums for
// real across the ranks of one process, at the machine's busbw).
#include <algorithm>
#include <cstring>
#include <deque>
#include <vector>

#include "fake_internal.h"

namespace labcheck::gpu::fake {

namespace {

using namespace internal;
using namespace cuda;

// --- cuBLASLt -------------------------------------------------------------------------------

using namespace cublaslt;
int g_opaque = 0;
cublasStatus_t LtCreate(cublasLtHandle_t* h) {
  FAKE_LOCK();
  *h = reinterpret_cast<cublasLtHandle_t>(&g_opaque); return kStatusSuccess;
}
cublasStatus_t LtDestroy(cublasLtHandle_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
size_t LtVersion() { return 130100; }
size_t LtCudart() { return 13000; }
cublasStatus_t DescCreate(cublasLtMatmulDesc_t* d, cublasComputeType_t, cudaDataType_t) {
  FAKE_LOCK();
  *d = &g_opaque; return kStatusSuccess;
}
cublasStatus_t DescDestroy(cublasLtMatmulDesc_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
cublasStatus_t DescSet(cublasLtMatmulDesc_t, int, const void*, size_t) {
  FAKE_LOCK();
  Log("cublasLtMatmulDescSetAttribute");
  return g_machine.fail_desc_set_attribute;
}
cublasStatus_t LayoutCreate(cublasLtMatrixLayout_t* l, cudaDataType_t, uint64_t, uint64_t, int64_t) {
  FAKE_LOCK();
  *l = &g_opaque; return kStatusSuccess;
}
cublasStatus_t LayoutDestroy(cublasLtMatrixLayout_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
cublasStatus_t PrefCreate(cublasLtMatmulPreference_t* p) {
  FAKE_LOCK();
  *p = &g_opaque; return kStatusSuccess;
}
cublasStatus_t PrefDestroy(cublasLtMatmulPreference_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
cublasStatus_t PrefSet(cublasLtMatmulPreference_t, int, const void*, size_t) {
  FAKE_LOCK();
  Log("cublasLtMatmulPreferenceSetAttribute");
  return kStatusSuccess;
}
cublasStatus_t Heuristic(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                         cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int requested,
                         cublasLtMatmulHeuristicResult_t* results, int* returned) {
  FAKE_LOCK();
  *returned = std::min(requested, 1);
  results[0] = {};
  return kStatusSuccess;
}
cublasStatus_t Matmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, cublasLtMatrixLayout_t,
                      const void*, cublasLtMatrixLayout_t, const void*, const void*, cublasLtMatrixLayout_t, void*,
                      cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t*, void*, size_t, CUstream stream) {
  FAKE_LOCK();
  Log("cublasLtMatmul");
  Advance(StreamOf(stream), 1.0);  // the product itself is not computed: a fixed 1 ms per call
  return kStatusSuccess;
}

// --- NCCL -----------------------------------------------------------------------------------

struct FakeComm {
  int rank = 0, count = 0, device = 0;
};
std::deque<FakeComm> g_comms;
struct PendingReduce {
  const float* send;
  float* receive;
  size_t count;
  FakeComm* comm;
  CUstream stream;
};
std::vector<PendingReduce> g_pending;
int g_group_depth = 0;

void FlushReduces() {
  if (g_pending.empty()) return;
  const size_t count = g_pending.front().count;
  std::vector<float> sum(count, 0.0f);
  for (const PendingReduce& p : g_pending)
    for (size_t i = 0; i < count; ++i) sum[i] += p.send[i];
  const int n = static_cast<int>(g_pending.size());
  const double ms = n > 1 ? Ms(static_cast<size_t>(count * sizeof(float) * 2.0 * (n - 1) / n), g_machine.allreduce_busbw_gbps) : 0.001;
  for (const PendingReduce& p : g_pending) {
    std::memcpy(p.receive, sum.data(), count * sizeof(float));
    Advance(StreamOf(p.stream), ms);
  }
  g_pending.clear();
}

nccl::ncclResult_t NcclVersion(int* v) {
  FAKE_LOCK();
  *v = 22809; return nccl::kSuccess;
}
const char* NcclError(nccl::ncclResult_t) { return "fake error"; }
nccl::ncclResult_t CommInitAll(nccl::ncclComm_t* comms, int count, const int* devices) {
  FAKE_LOCK();
  Log("ncclCommInitAll");
  for (int i = 0; i < count; ++i) {
    g_comms.push_back({i, count, devices[i]});
    comms[i] = reinterpret_cast<nccl::ncclComm_t>(&g_comms.back());
  }
  return nccl::kSuccess;
}
nccl::ncclResult_t CommDone(nccl::ncclComm_t) {
  FAKE_LOCK();
  return nccl::kSuccess;
}
nccl::ncclResult_t AsyncError(nccl::ncclComm_t, nccl::ncclResult_t* e) {
  FAKE_LOCK();
  *e = nccl::kSuccess; return nccl::kSuccess;
}
nccl::ncclResult_t AllReduce(const void* send, void* receive, size_t count, nccl::ncclDataType_t, nccl::ncclRedOp_t,
                             nccl::ncclComm_t comm, CUstream stream) {
  FAKE_LOCK();
  Log("ncclAllReduce");
  g_pending.push_back({static_cast<const float*>(send), static_cast<float*>(receive), count,
                       reinterpret_cast<FakeComm*>(comm), stream});
  if (g_group_depth == 0) FlushReduces();
  return nccl::kSuccess;
}
nccl::ncclResult_t GroupStart() {
  FAKE_LOCK();
  ++g_group_depth; return nccl::kSuccess;
}
nccl::ncclResult_t GroupEnd() {
  FAKE_LOCK();
  if (--g_group_depth == 0) FlushReduces();
  return nccl::kSuccess;
}

}  // namespace

cublaslt::CublasLtApi FakeCublasLtApi() {
  cublaslt::CublasLtApi a;
  a.cublasLtCreate = LtCreate;
  a.cublasLtDestroy = LtDestroy;
  a.cublasLtGetVersion = LtVersion;
  a.cublasLtGetCudartVersion = LtCudart;
  a.cublasLtMatmulDescCreate = DescCreate;
  a.cublasLtMatmulDescDestroy = DescDestroy;
  a.cublasLtMatmulDescSetAttribute = DescSet;
  a.cublasLtMatrixLayoutCreate = LayoutCreate;
  a.cublasLtMatrixLayoutDestroy = LayoutDestroy;
  a.cublasLtMatmulPreferenceCreate = PrefCreate;
  a.cublasLtMatmulPreferenceDestroy = PrefDestroy;
  a.cublasLtMatmulPreferenceSetAttribute = PrefSet;
  a.cublasLtMatmulAlgoGetHeuristic = Heuristic;
  a.cublasLtMatmul = Matmul;
  return a;
}

nccl::NcclApi FakeNcclApi() {
  nccl::NcclApi a;
  a.ncclGetVersion = NcclVersion;
  a.ncclGetErrorString = NcclError;
  a.ncclCommInitAll = CommInitAll;
  a.ncclCommDestroy = CommDone;
  a.ncclCommAbort = CommDone;
  a.ncclCommGetAsyncError = AsyncError;
  a.ncclAllReduce = AllReduce;
  a.ncclGroupStart = GroupStart;
  a.ncclGroupEnd = GroupEnd;
  return a;
}

namespace internal {

void ResetNccl() {
  g_comms.clear();
  g_pending.clear();
  g_group_depth = 0;
}

}  // namespace internal

}  // namespace labcheck::gpu::fake
