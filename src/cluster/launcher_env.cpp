#include "cluster/launcher_env.h"

#include <cstdlib>
#include <vector>

namespace labcheck::cluster {

namespace {

// Strict decimal integer: "3" yes, "3x", "" and "-" no.
std::optional<long> ParseInteger(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return value;
}

// Reads the variables of one launcher. A missing optional variable stays nullopt; a malformed one
// is an error naming it, because a silently wrong rank would hang every other process.
class Reader {
 public:
  explicit Reader(const EnvLookup& env) : env_(env) {}

  bool Has(const std::string& name) const { return env_(name).has_value(); }

  std::optional<int> Int(const std::string& name) {
    std::optional<std::string> text = env_(name);
    if (!text) return std::nullopt;
    std::optional<long> value = ParseInteger(*text);
    if (!value && error_.empty()) error_ = name + "=" + *text + " is not an integer";
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
  }
  // The first of several names that is set (newer names first).
  std::optional<int> FirstInt(const std::vector<std::string>& names) {
    for (const std::string& name : names)
      if (Has(name)) return Int(name);
    return std::nullopt;
  }
  std::string FirstText(const std::vector<std::string>& names) const {
    for (const std::string& name : names)
      if (std::optional<std::string> value = env_(name)) return *value;
    return {};
  }
  // A variable this launcher always sets.
  int Required(const std::string& name, const char* launcher) {
    std::optional<int> value = Int(name);
    if (!value && error_.empty()) error_ = std::string(launcher) + " sets " + name + ", but it is missing";
    return value.value_or(0);
  }
  const std::string& error() const { return error_; }

 private:
  const EnvLookup& env_;
  std::string error_;
};

}  // namespace

const char* LauncherName(Launcher launcher) {
  switch (launcher) {
    case Launcher::Torchrun: return "torchrun";
    case Launcher::OpenMpi: return "Open MPI";
    case Launcher::Mpich: return "MPICH";
    case Launcher::Slurm: return "Slurm";
    case Launcher::None: break;
  }
  return "none";
}

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
}

std::optional<int> TasksOnNode(const std::string& tasks_per_node, int node_index) {
  // "2(x3),1": three nodes with 2 tasks, then one with 1.
  int node = 0;
  size_t start = 0;
  while (start <= tasks_per_node.size()) {
    size_t comma = tasks_per_node.find(',', start);
    std::string item = tasks_per_node.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t paren = item.find("(x");
    std::optional<long> count = ParseInteger(item.substr(0, paren));
    std::optional<long> repeat = 1L;
    if (paren != std::string::npos) {
      if (item.back() != ')') return std::nullopt;
      repeat = ParseInteger(item.substr(paren + 2, item.size() - paren - 3));
    }
    if (!count || !repeat || *repeat < 1) return std::nullopt;
    if (node_index < node + *repeat) return static_cast<int>(*count);
    node += static_cast<int>(*repeat);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return std::nullopt;
}

Result<LaunchEnv> ReadLaunchEnv(const EnvLookup& env) {
  Reader read(env);
  LaunchEnv out;
  if (read.Has("TORCHELASTIC_RUN_ID") || (read.Has("RANK") && read.Has("WORLD_SIZE") && read.Has("LOCAL_RANK"))) {
    out.launcher = Launcher::Torchrun;
    out.rank = read.Required("RANK", "torchrun");
    out.world_size = read.Required("WORLD_SIZE", "torchrun");
    out.local_rank = read.Required("LOCAL_RANK", "torchrun");
    out.local_size = read.Int("LOCAL_WORLD_SIZE");
    out.node_index = read.Int("GROUP_RANK");
  } else if (read.Has("OMPI_COMM_WORLD_RANK")) {
    out.launcher = Launcher::OpenMpi;
    out.rank = read.Required("OMPI_COMM_WORLD_RANK", "Open MPI");
    out.world_size = read.Required("OMPI_COMM_WORLD_SIZE", "Open MPI");
    out.local_rank = read.Required("OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI");
    out.local_size = read.Int("OMPI_COMM_WORLD_LOCAL_SIZE");
  } else if (read.Has("PMI_RANK")) {
    out.launcher = Launcher::Mpich;
    out.rank = read.Required("PMI_RANK", "MPICH");
    out.world_size = read.Required("PMI_SIZE", "MPICH");
    out.local_rank = read.FirstInt({"MPI_LOCALRANKID"}).value_or(0);
    out.local_size = read.Int("MPI_LOCALNRANKS");
  } else if (read.Has("SLURM_PROCID") && (read.Has("SLURM_STEP_ID") || read.Has("SLURM_STEP_NUM_TASKS"))) {
    // SLURM_PROCID alone is also set in an sbatch script (0, with SLURM_NTASKS = the whole job):
    // only srun's task step says that the other tasks exist and are being started.
    out.launcher = Launcher::Slurm;
    out.rank = read.Required("SLURM_PROCID", "Slurm");
    std::optional<int> tasks = read.FirstInt({"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"});
    if (!tasks && read.error().empty()) return Status::Error("Slurm sets SLURM_STEP_NUM_TASKS or SLURM_NTASKS, but both are missing");
    out.world_size = tasks.value_or(0);
    out.local_rank = read.FirstInt({"SLURM_LOCALID"}).value_or(0);
    out.node_index = read.Int("SLURM_NODEID");
    out.node_list = read.FirstText({"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
    const std::string per_node = read.FirstText({"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
    if (!per_node.empty() && out.node_index) out.local_size = TasksOnNode(per_node, *out.node_index);
    if (std::optional<int> job = read.Int("SLURM_JOB_ID")) out.job_id = *job;
  }
  out.master_addr = read.FirstText({"MASTER_ADDR"});
  out.master_port = read.Int("MASTER_PORT");
  if (!read.error().empty()) return Status::Error(read.error());
  if (out.world_size < 1) return Status::Error(std::string(LauncherName(out.launcher)) + ": world size " + std::to_string(out.world_size) + " is below 1");
  if (out.rank < 0 || out.rank >= out.world_size)
    return Status::Error(std::string(LauncherName(out.launcher)) + ": rank " + std::to_string(out.rank) +
                         " is outside a world of " + std::to_string(out.world_size));
  if (out.local_rank < 0 || (out.local_size && out.local_rank >= *out.local_size))
    return Status::Error(std::string(LauncherName(out.launcher)) + ": local rank " + std::to_string(out.local_rank) +
                         " is outside " + std::to_string(out.local_size.value_or(0)) + " processes on this node");
  return out;
}

}  // namespace labcheck::cluster
