// Where NCCL's bootstrap root listens: the address every rank puts in NCCL_COMM_ID before
// ncclGetUniqueId/ncclCommInitRank. With NCCL_COMM_ID set, ncclGetUniqueId only encodes that address
// (no exchange between processes is needed) and rank 0's ncclCommInitRank starts the root there
// (NVIDIA/nccl src/bootstrap.cc bootstrapGetUniqueId, src/init.cc ncclCommInitRankDev). So all we
// need is rank 0's host, which every launcher already knows. docs/multi-node.md says why this
// and not MPI is the default.
#pragma once
#include <optional>
#include <string>

#include "cluster/launcher_env.h"
#include "core/status.h"

namespace labcheck::cluster {

// Port offsets from the base port: the sweep's communicator, then the one that gathers the
// report (a fresh process, after the sweep, whatever happened in it).
inline constexpr int kSweepPortOffset = 0;
inline constexpr int kGatherPortOffset = 1;
inline constexpr int kDefaultBasePort = 29510;

struct Rendezvous {
  std::string host;   // rank 0's host name or address
  int base_port = 0;  // the sweep's NCCL_COMM_ID port; +1 for the gather
  std::string source; // where the host came from, for the report: "MASTER_ADDR", "SLURM_STEP_NODELIST"…

  // "host:port", "[v6::addr]:port" (NCCL's format for NCCL_COMM_ID).
  std::string CommId(int port_offset) const;
};

// In order: NCCL_COMM_ID given by the user (its port becomes the base); MASTER_ADDR (torchrun sets
// it; with mpirun pass -x MASTER_ADDR) with MASTER_PORT+1, because torchrun's own store may listen
// on MASTER_PORT; the first host of Slurm's node list; 127.0.0.1 when the launcher says every
// process is on this host. `port` (--port) overrides the base port. Otherwise an error that says
// what to pass.
Result<Rendezvous> ChooseRendezvous(const LaunchEnv& launch, const EnvLookup& env, std::optional<int> port);

}  // namespace labcheck::cluster
