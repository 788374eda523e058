// Shared by the files of the libnccl.so.2 sim. Types and values: /usr/local/cuda/include/nccl.h.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/device_memory.h"
#include "core/devices.h"
#include "core/export.h"

namespace ncclsim {

using ncclResult_t = int;
inline constexpr ncclResult_t kSuccess = 0, kUnhandledCudaError = 1, kSystemError = 2, kInternalError = 3, kInvalidArgument = 4,
                              kInvalidUsage = 5, kRemoteError = 6, kInProgress = 7;

struct ncclUniqueId {
  char internal[128];
};

struct Clique;
struct Rendezvous;

// nccl_build.cpp: the CUDA this build is for ("12.9"), and whether the profile's driver runs it
// (a build for a newer CUDA major fails its communicator init, as the real one does).
const char* BuiltForCuda();
bool DriverRunsBuild();

struct Comm {
  Clique* clique = nullptr;
  int rank = 0;
  int device = -1;  // profile index
  bool aborted = false;
  ncclResult_t async_error = kSuccess;
  std::string last_error;
  std::vector<nvsim::Stream*> hung_streams;  // streams its hung collectives block; ncclCommAbort frees them
};

// One all-reduce posted by one rank.
struct Op {
  Comm* comm;
  nvsim::DevicePlace send, receive;
  size_t count;
  nvsim::Stream* stream;
};

// The ranks of one communicator that live in this process (all of them for ncclCommInitAll).
struct Clique {
  int ranks = 0;                     // ranks in this process
  int world = 0;                     // all ranks (0: the same as `ranks`)
  Rendezvous* rendezvous = nullptr;  // other processes' ranks, for ncclCommInitRank
  std::vector<Comm*> comms;
  std::vector<Op> posted;  // waiting for the other ranks
};

// Called with every rank's op for one collective: models the time and records the sum.
// `data_done`: the sum is already in the receive buffers (across processes); `hang`: never completes.
void Launch(const std::vector<Op>& ops, int world_size, bool data_done, bool hang);
// NCCL_DEBUG=INFO lines into NCCL_DEBUG_FILE (or stderr): version, channels, Init COMPLETE.
void LogInit(const Clique& clique);
void LogLine(int device, const std::string& text);
bool P2pDisabled();
// One rank per process (nccl_bootstrap.cpp): the data exchange with the other processes.
bool CrossProcessAllReduce(const Op& op, Rendezvous& rendezvous);
// Rank r's `bytes` land at r·bytes in every rank's `receive` (ncclAllGather's layout).
bool CrossProcessAllGather(Comm* comm, const nvsim::DevicePlace& send, const nvsim::DevicePlace& receive, size_t bytes,
                           Rendezvous& rendezvous);
void LeaveRendezvous(Rendezvous* rendezvous, int rank);

}  // namespace ncclsim
