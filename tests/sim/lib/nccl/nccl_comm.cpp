// libnccl.so.2 sim: versions, errors, communicators (ncclCommInitAll: every rank in this
// process), groups, ncclAllReduce and the NCCL_DEBUG log our check reads the transport from.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "core/interconnect.h"
#include "nccl/nccl_internal.h"

namespace ncclsim {

namespace {

std::mutex& LogLock() {
  static std::mutex mutex;
  return mutex;
}

std::string LogPath() {
  const char* file = std::getenv("NCCL_DEBUG_FILE");
  if (file == nullptr) return "";
  std::string path;
  for (const char* p = file; *p != '\0'; ++p) {  // %h host, %p pid, as NCCL expands them
    if (p[0] == '%' && p[1] == 'h') {
      path += "simhost";
      ++p;
    } else if (p[0] == '%' && p[1] == 'p') {
      path += std::to_string(getpid());
      ++p;
    } else {
      path += *p;
    }
  }
  return path;
}

}  // namespace

void LogLine(int device, const std::string& text) {
  const char* level = std::getenv("NCCL_DEBUG");
  if (level == nullptr || (std::string(level) != "INFO" && std::string(level) != "TRACE")) return;
  std::lock_guard<std::mutex> lock(LogLock());
  const std::string path = LogPath();
  FILE* out = path.empty() ? stderr : std::fopen(path.c_str(), "a");
  if (out == nullptr) return;
  std::fprintf(out, "simhost:%d:%d [%d] %s\n", getpid(), getpid(), device, text.c_str());
  if (out != stderr) std::fclose(out);
}

void LogInit(const Clique& clique) {
  const nvsim::Machine& m = nvsim::Profile();
  const std::string version = m.String("nccl_version");
  const bool p2p_off = P2pDisabled();
  for (const Comm* c : clique.comms) {
    if (c->rank == 0) LogLine(c->device, "NCCL INFO NCCL version " + version + "+cuda" + BuiltForCuda() + " (simulated)");
    if (p2p_off && c->rank == 0) LogLine(c->device, "NCCL INFO NCCL_P2P_DISABLE set by environment to 1.");
    if (clique.ranks > 1) {
      const Comm* next = clique.comms[(c->rank + 1) % clique.comms.size()];
      const bool p2p = !p2p_off && nvsim::PeerAccess(c->device, next->device);
      const std::string via = p2p ? "P2P/CUMEM" : "SHM/direct/direct";
      for (int channel = 0; channel < 2; ++channel)
        LogLine(c->device, "NCCL INFO Channel 0" + std::to_string(channel) + "/0 : " + std::to_string(c->rank) + "[" +
                               std::to_string(c->device) + "] -> " + std::to_string(next->rank) + "[" +
                               std::to_string(next->device) + "] via " + via);
    }
    LogLine(c->device, "NCCL INFO comm rank " + std::to_string(c->rank) + " nRanks " + std::to_string(clique.ranks) +
                           " - Init COMPLETE");
  }
}

}  // namespace ncclsim

using namespace ncclsim;

namespace {

thread_local int group_depth = 0;
thread_local std::vector<Op> group_ops;

int VersionCode() {
  int major = 2, minor = 27, patch = 7;
  std::sscanf(nvsim::Profile().String("nccl_version").c_str(), "%d.%d.%d", &major, &minor, &patch);
  return major * 10000 + minor * 100 + patch;  // NCCL_VERSION_CODE since 2.9
}

std::mutex& PostLock() {
  static std::mutex mutex;
  return mutex;
}

// "allreduce/launch_overhead_us" (default 0): host time each ncclAllReduce call spends after
// its work is queued (NCCL's host-side bookkeeping). The GPU does not wait for it, so CUDA events
// on the stream do not see it; a host clock around the loop of calls does, wherever the calls
// take longer than the collectives they queue (small messages), as nccl-tests' timing does.
void SpendLaunchOverhead() {
  const double us = nvsim::Profile().Number("allreduce/launch_overhead_us");
  if (us <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < until) {
  }  // spun, not slept: sleeps are coarser than a few microseconds
}

// Adds `op` to its clique; when every rank has posted, the collective starts.
void Post(const Op& op) {
  Clique& own = *op.comm->clique;
  if (own.rendezvous != nullptr) {  // the other ranks live in other processes
    if (op.comm->async_error != kSuccess) return;
    const bool ok = CrossProcessAllReduce(op, *own.rendezvous);
    Launch({op}, own.world, /*data_done=*/true, /*hang=*/!ok);
    return;
  }
  std::vector<Op> ready;
  {
    std::lock_guard<std::mutex> lock(PostLock());
    Clique& clique = *op.comm->clique;
    clique.posted.push_back(op);
    if (static_cast<int>(clique.posted.size()) < clique.ranks) return;
    ready.swap(clique.posted);
  }
  Launch(ready, op.comm->clique->ranks, /*data_done=*/false, /*hang=*/false);
}

}  // namespace

NVSIM_EXPORT(ncclResult_t, ncclGetVersion, (int* version)) {
  if (version == nullptr) return kInvalidArgument;
  *version = VersionCode();
  return kSuccess;
}

NVSIM_EXPORT(const char*, ncclGetErrorString, (ncclResult_t result)) {
  switch (result) {
    case 0: return "no error";
    case 1: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case 2: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case 3: return "internal error - please report this issue to the NCCL developers";
    case 4: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case 5: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case 6: return "remote process exited or there was a network error";
    case 7: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}

NVSIM_EXPORT(const char*, ncclGetLastError, (Comm * comm)) {
  static thread_local std::string none;
  return comm != nullptr ? comm->last_error.c_str() : none.c_str();
}

NVSIM_EXPORT(ncclResult_t, ncclCommInitAll, (Comm * *comms, int count, const int* devices)) {
  if (comms == nullptr || count <= 0) return kInvalidArgument;
  if (!DriverRunsBuild()) return kUnhandledCudaError;  // nccl_build.cpp
  auto* clique = new Clique();
  clique->ranks = count;
  for (int r = 0; r < count; ++r) {
    const nvsim::Gpu* g = nvsim::CudaGpu(devices != nullptr ? devices[r] : r);
    if (g == nullptr) return kInvalidArgument;
    auto* c = new Comm();
    c->clique = clique;
    c->rank = r;
    c->device = g->index;
    clique->comms.push_back(c);
    comms[r] = c;
  }
  LogInit(*clique);
  return kSuccess;
}

// nccl.h: ncclCommFinalize "flushes all issued communications", and only after it has
// completed can ncclCommDestroy "locally free the rest of the resources ... without blocking";
// a destroy without it finalizes first (NCCL user guide, ncclCommDestroy). A collective that
// never completes is never flushed: the destroy blocks, as the real one can. ncclCommAbort is
// the way out of a hang.
NVSIM_EXPORT(ncclResult_t, ncclCommDestroy, (Comm * comm)) {
  if (comm == nullptr) return kInvalidArgument;
  if (!comm->hung_streams.empty()) {
    LogLine(comm->device, "NCCL INFO simulated hang: ncclCommDestroy waits for a collective that never completes");
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  comm->aborted = true;
  LeaveRendezvous(comm->clique->rendezvous, comm->rank);
  comm->clique->rendezvous = nullptr;  // the clique keeps its pointer; nothing is freed while ranks may post
  return kSuccess;
}

// nccl.h: "Frees resources associated with communicator object and aborts any operations that
// might still be running on the device": a hung collective ends, its stream (and a later
// cuCtxSynchronize) no longer waits for it.
NVSIM_EXPORT(ncclResult_t, ncclCommAbort, (Comm * comm)) {
  if (comm == nullptr) return kInvalidArgument;
  comm->aborted = true;
  for (nvsim::Stream* stream : comm->hung_streams) nvsim::ReleaseHung(*stream);
  comm->hung_streams.clear();
  return kSuccess;
}

NVSIM_EXPORT(ncclResult_t, ncclCommGetAsyncError, (Comm * comm, ncclResult_t* error)) {
  if (comm == nullptr || error == nullptr) return kInvalidArgument;
  *error = comm->async_error;
  return kSuccess;
}

NVSIM_EXPORT(ncclResult_t, ncclCommCount, (const Comm* comm, int* count)) {
  if (comm == nullptr || count == nullptr) return kInvalidArgument;
  *count = comm->clique->world > 0 ? comm->clique->world : comm->clique->ranks;
  return kSuccess;
}

NVSIM_EXPORT(ncclResult_t, ncclCommUserRank, (const Comm* comm, int* rank)) {
  if (comm == nullptr || rank == nullptr) return kInvalidArgument;
  *rank = comm->rank;
  return kSuccess;
}

NVSIM_EXPORT(ncclResult_t, ncclGroupStart, ()) {
  ++group_depth;
  return kSuccess;
}

NVSIM_EXPORT(ncclResult_t, ncclGroupEnd, ()) {
  if (group_depth <= 0) return kInvalidUsage;
  if (--group_depth > 0) return kSuccess;
  std::vector<Op> ops;
  ops.swap(group_ops);
  for (const Op& op : ops) Post(op);
  return kSuccess;
}

// nccl.h: ncclAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream): "each device
// receives data from all ranks in recvbuff at offset rank * sendcount". Modelled across processes
// (the NCCL_COMM_ID communicators of lab_check allreduce); int8 and float32, the types we use.
NVSIM_EXPORT(ncclResult_t, ncclAllGather, (const void* send, void* receive, size_t count, int type, Comm* comm,
                                           void* stream)) {
  if (comm == nullptr || comm->aborted) return kInvalidUsage;
  const size_t width = type == 0 ? 1 : type == 7 ? 4 : 0;  // ncclInt8, ncclFloat32
  if (width == 0) {
    comm->last_error = "the NCCL sim's all-gather implements int8 and float32 only";
    return kInvalidArgument;
  }
  Clique& clique = *comm->clique;
  if (clique.rendezvous == nullptr) {
    comm->last_error = "the NCCL sim models ncclAllGather across processes only (ncclCommInitRank)";
    return kInvalidUsage;
  }
  const size_t bytes = count * width;
  const int world = clique.world > 0 ? clique.world : clique.ranks;
  nvsim::DevicePlace from = nvsim::Find(reinterpret_cast<uintptr_t>(send), bytes);
  nvsim::DevicePlace to = nvsim::Find(reinterpret_cast<uintptr_t>(receive), bytes * static_cast<size_t>(world));
  if (!from.allocation || !to.allocation) {
    comm->last_error = "send or receive buffer is not device memory";
    return kInvalidArgument;
  }
  if (comm->async_error != kSuccess) return kSuccess;  // as ncclAllReduce: the error is asynchronous
  nvsim::Stream* on = stream != nullptr ? static_cast<nvsim::Stream*>(stream) : &nvsim::DefaultStream(comm->device);
  nvsim::OrderAfterLegacy(*on);
  const bool ok = CrossProcessAllGather(comm, from, to, bytes, *clique.rendezvous);
  // Timed as an all-reduce of the gathered volume: a latency-bound exchange of small blocks here.
  Op timed{comm, from, to, (bytes * static_cast<size_t>(world) + 3) / 4, on};
  Launch({timed}, world, /*data_done=*/true, /*hang=*/!ok);
  return kSuccess;
}

NVSIM_EXPORT(ncclResult_t, ncclAllReduce, (const void* send, void* receive, size_t count, int type, int op, Comm* comm,
                                           void* stream)) {
  if (comm == nullptr || comm->aborted) return kInvalidUsage;
  if (type != 7 || op != 0) {  // ncclFloat32, ncclSum: all our check uses
    comm->last_error = "the NCCL sim implements float32 sum only";
    return kInvalidArgument;
  }
  Op posted{comm, nvsim::Find(reinterpret_cast<uintptr_t>(send), count * 4),
            nvsim::Find(reinterpret_cast<uintptr_t>(receive), count * 4), count,
            stream != nullptr ? static_cast<nvsim::Stream*>(stream) : &nvsim::DefaultStream(comm->device)};
  if (!posted.send.allocation || !posted.receive.allocation) {
    comm->last_error = "send or receive buffer is not device memory";
    return kInvalidArgument;
  }
  nvsim::OrderAfterLegacy(*posted.stream);
  if (group_depth > 0) group_ops.push_back(posted);
  else Post(posted);
  SpendLaunchOverhead();
  return kSuccess;
}
