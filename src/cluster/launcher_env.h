// Who am I in a multi-process run: rank, world size and local rank as the launcher that started
// this process says them. We never start processes across hosts ourselves; srun, mpirun and
// torchrun already do that, and each leaves its own variables in every process's environment:
//
//   torchrun (torch.distributed.run): RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
//            MASTER_ADDR, MASTER_PORT (docs.pytorch.org/docs/stable/elastic/run.html)
//   Open MPI mpirun: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
//            (docs.open-mpi.org, "mpirun(1)": environment variables)
//   MPICH / Hydra mpiexec: PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS
//   Slurm srun: SLURM_PROCID, SLURM_STEP_NUM_TASKS (or SLURM_NTASKS), SLURM_LOCALID, SLURM_NODEID,
//            SLURM_STEP_NODELIST (or SLURM_JOB_NODELIST / SLURM_NODELIST), SLURM_STEP_TASKS_PER_NODE,
//            SLURM_JOB_ID (slurm.schedmd.com/srun.html, "OUTPUT ENVIRONMENT VARIABLES")
//
// The order matters: torchrun and mpirun are often run inside a Slurm allocation, where SLURM_PROCID
// numbers the nodes (one torchrun or MPI daemon per node), not our processes. So the most specific
// launcher wins: torchrun, then Open MPI, then MPICH, then Slurm.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "core/status.h"

namespace labcheck::cluster {

enum class Launcher { None, Torchrun, OpenMpi, Mpich, Slurm };

const char* LauncherName(Launcher launcher);  // "torchrun", "Open MPI", "MPICH", "Slurm", "none"

struct LaunchEnv {
  Launcher launcher = Launcher::None;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::optional<int> local_size;  // processes on this node, where the launcher says it
  std::optional<int> node_index;  // torchrun's GROUP_RANK, Slurm's SLURM_NODEID
  std::string master_addr;        // MASTER_ADDR, whoever set it (torchrun, or the user via mpirun -x)
  std::optional<int> master_port;
  std::string node_list;          // Slurm's compressed host list ("gpu[01-04]")
  std::optional<long> job_id;     // SLURM_JOB_ID
};

// Returns the value of an environment variable, or nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup ProcessEnvironment();

// Launcher::None (rank 0 of 1) when no launcher's variables are set. An error names the variable
// that is malformed or inconsistent (a rank outside the world, a world size below 1).
Result<LaunchEnv> ReadLaunchEnv(const EnvLookup& env);

// Slurm's per-node task counts "2(x3),1" and a node index → the count on that node.
std::optional<int> TasksOnNode(const std::string& tasks_per_node, int node_index);

}  // namespace labcheck::cluster
