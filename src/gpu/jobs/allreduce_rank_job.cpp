// Child job "gpu-allreduce-rank": this process's one rank of a multi-node all-reduce
// (docs/multi-node.md). The parent (`lab_check allreduce`, one per GPU under srun, mpirun or
// torchrun) sets NCCL_COMM_ID, NCCL_DEBUG=INFO and NCCL_DEBUG_FILE. Steps, each recorded in the
// progress file so that the parent still knows how far it got when this process dies or hangs:
//   1. join the world communicator (ncclCommInitRank);
//   2. gather every rank's node key (a hash of its host name) to learn who shares this node;
//   3. make the per-node communicator: the node's first rank makes a unique id (NCCL_COMM_ID unset,
//      so it is NCCL's ordinary random one), the world communicator gathers the ids;
//   4. the sweep over the world (the same sizes as on one node), one size at a time;
//   5. the same sweep on the node communicator alone: each node's intra-node figure.
// Arguments: --rank R --world N --local-rank L --node-key K --progress FILE [--stall-s S]
// [--max-bytes B] [--quick] [--site-packages DIR].
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <thread>

#include "core/units.h"
#include "gpu/collective/allreduce_json.h"
#include "gpu/collective/allreduce_math.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/rank_comm.h"
#include "platform/files.h"

namespace labcheck::gpu {

namespace {

constexpr size_t kNodeKeyBytes = 64;

// Test-only faults (docs/multi-node.md): this rank dies or hangs before the sweep's Nth size.
void PlantedFault(int rank, size_t size_index) {
  const char* at = std::getenv("LABCHECK_TEST_ALLREDUCE_FAULT_SIZE");
  if (size_index != static_cast<size_t>(at ? std::atoi(at) : 2)) return;
  const std::string me = std::to_string(rank);
  if (const char* kill = std::getenv("LABCHECK_TEST_ALLREDUCE_KILL_RANK"); kill && me == kill) raise(SIGKILL);
  if (const char* hang = std::getenv("LABCHECK_TEST_ALLREDUCE_HANG_RANK"); hang && me == hang)
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

class Progress {
 public:
  Progress(std::string path, nlohmann::json* state) : path_(std::move(path)), state_(state) {}
  void Phase(const std::string& phase) {
    (*state_)["phase"] = phase;
    Save();
  }
  void Save() const {
    if (!path_.empty()) (void)WriteFileAtomically(path_, state_->dump());
  }

 private:
  std::string path_;
  nlohmann::json* state_;
};

// Runs the sizes one by one so that each finished size reaches the progress file before the next.
SweepResult Sweep(const CudaDriver& driver, const Nccl& nccl, RankGroup& group, const SweepPlan& plan, int world_rank,
                  nlohmann::json* state, const char* key, Progress& progress, bool plant_faults) {
  SweepResult total;
  for (size_t i = 0; i < plan.sizes_bytes.size(); ++i) {
    if (plant_faults) PlantedFault(world_rank, i);
    (*state)[key]["running_bytes"] = plan.sizes_bytes[i];
    progress.Save();
    SweepPlan one = plan;
    one.sizes_bytes = {plan.sizes_bytes[i]};
    SweepResult part = RunAllReduceSweep(driver, nccl, group, one);
    total.sizes.insert(total.sizes.end(), part.sizes.begin(), part.sizes.end());
    total.wrong_sum = total.wrong_sum || part.wrong_sum;
    total.hung = part.hung;
    total.nccl_error = part.nccl_error;
    // One rank of many here: host_time_us is this rank's; the merge averages it over the ranks.
    (*state)[key] = {{"sizes", SizesJson(total.sizes, /*all_ranks_here=*/false, group.world_size)},
                     {"hung", total.hung}, {"nccl_error", total.nccl_error},
                     {"wrong_sum", total.wrong_sum}, {"ranks", group.world_size}};
    if (part.hung || !part.nccl_error.empty()) (*state)[key]["stopped_at_bytes"] = plan.sizes_bytes[i];
    progress.Save();
    if (part.hung || !part.nccl_error.empty()) break;
  }
  return total;
}

// Node index (order of first appearance), local rank, local size and the node's first rank.
struct NodePlace {
  int index = 0, local_rank = 0, local_size = 0, leader = 0, nodes = 0;
};

NodePlace PlaceInNodes(const std::vector<std::string>& keys, int rank) {
  std::vector<std::string> distinct;
  for (const std::string& k : keys)
    if (std::find(distinct.begin(), distinct.end(), k) == distinct.end()) distinct.push_back(k);
  NodePlace place;
  place.nodes = static_cast<int>(distinct.size());
  place.index = static_cast<int>(std::find(distinct.begin(), distinct.end(), keys[rank]) - distinct.begin());
  place.leader = -1;
  for (int r = 0; r < static_cast<int>(keys.size()); ++r) {
    if (keys[r] != keys[rank]) continue;
    if (place.leader < 0) place.leader = r;
    if (r < rank) ++place.local_rank;
    ++place.local_size;
  }
  return place;
}

// What every step below reads and writes: this rank's GPU, NCCL, its place in the world, and the
// state that the progress file mirrors.
struct RankJob {
  const CudaDriver& driver;
  const Nccl& nccl;
  ProcessRank& process;
  nlohmann::json& state;
  Progress& progress;
  int rank = 0, world = 1;
  double stall_s = 30;
};

// The GPU this process drives: its local rank, wrapped round when there are more processes than GPUs.
int ChooseDevice(GpuRuntime& runtime, const Nccl& nccl, int local_rank, nlohmann::json& state) {
  const CudaDriver& driver = runtime.driver();
  const int device = local_rank % runtime.device_count();
  char name[256] = {};
  cuda::CUdevice handle = 0;
  if (driver.api().cuDeviceGet(&handle, device) == cuda::kSuccess) driver.api().cuDeviceGetName(name, sizeof name, handle);
  state["device"] = device;
  state["device_count"] = runtime.device_count();
  state["gpu_name"] = name;
  state["nccl_version"] = nccl.VersionText();
  if (local_rank >= runtime.device_count()) state["shares_gpu"] = true;  // more processes than GPUs here
  return device;
}

// 1. The world communicator. NCCL_COMM_ID is set: every rank gets the same id without talking.
bool JoinWorld(RankJob& job) {
  job.progress.Phase("init");
  nccl::ncclUniqueId id{};
  nccl::ncclResult_t got = job.nccl.api().ncclGetUniqueId(&id);
  Status joined = got == nccl::kSuccess ? JoinCommunicator(job.nccl, job.process, id, job.rank, job.world)
                                        : Status::Error("ncclGetUniqueId failed: " + job.nccl.Describe(got));
  if (joined.ok()) return true;
  // Name this rank's view of the world: a mismatch of world sizes fails here.
  job.state["init_error"] = joined.message() + "; this process: rank " + std::to_string(job.rank) + " of " + std::to_string(job.world);
  job.progress.Phase("init_failed");
  return false;
}

// 2. Who shares this node.
std::optional<NodePlace> FindNodeMates(RankJob& job, const std::string& node_key) {
  job.progress.Phase("nodes");
  Result<std::vector<char>> key_block = TextBlock(node_key, kNodeKeyBytes);
  Result<std::vector<char>> keys = key_block.ok() ? AllGatherBlocks(job.driver, job.nccl, job.process, *key_block, kNodeKeyBytes, job.stall_s)
                                                  : Result<std::vector<char>>(key_block.status());
  if (!keys.ok()) {
    job.state["node_error"] = keys.status().message();
    return std::nullopt;
  }
  std::vector<std::string> all;
  for (int r = 0; r < job.world; ++r) all.push_back(BlockText(*keys, r, kNodeKeyBytes));
  const NodePlace place = PlaceInNodes(all, job.rank);
  job.state["node"] = {{"index", place.index}, {"local_rank", place.local_rank}, {"local_size", place.local_size},
                       {"nodes", place.nodes}};
  return place;
}

// 3. The node's own communicator, from its first rank's unique id.
std::optional<nccl::ncclComm_t> MakeNodeCommunicator(RankJob& job, const NodePlace& place) {
  job.progress.Phase("node_comm");
  unsetenv("NCCL_COMM_ID");  // from here on ncclGetUniqueId makes a fresh random id
  std::vector<char> mine(sizeof(nccl::ncclUniqueId), '\0');
  nccl::ncclUniqueId node_id{};
  Status made = Status::Ok();
  if (job.rank == place.leader) {
    nccl::ncclResult_t r = job.nccl.api().ncclGetUniqueId(&node_id);
    if (r != nccl::kSuccess) made = Status::Error("ncclGetUniqueId failed: " + job.nccl.Describe(r));
    std::memcpy(mine.data(), &node_id, sizeof node_id);
  }
  std::optional<nccl::ncclComm_t> node_comm;
  Result<std::vector<char>> ids = AllGatherBlocks(job.driver, job.nccl, job.process, mine, sizeof node_id, job.stall_s);
  if (made.ok() && ids.ok()) {
    std::memcpy(&node_id, ids->data() + place.leader * sizeof node_id, sizeof node_id);
    nccl::ncclComm_t comm = nullptr;
    nccl::ncclResult_t r = job.nccl.api().ncclCommInitRank(&comm, place.local_size, node_id, place.local_rank);
    if (r == nccl::kSuccess) node_comm = comm;
    else made = Status::Error("ncclCommInitRank (node) failed: " + job.nccl.Describe(r));
  }
  if (!ids.ok()) made = ids.status();
  if (!made.ok()) job.state["node_comm_error"] = made.message();
  return node_comm;
}

// The largest size: --max-bytes, halved until send + receive fit within half the free memory.
size_t MaxSweepBytes(const JobArgs& args, const CudaDriver& driver) {
  size_t free_bytes = 0, total = 0;
  driver.api().cuMemGetInfo(&free_bytes, &total);
  size_t max_bytes = std::stoull(args.Option("max-bytes", std::to_string(args.quick ? 256 * kMiB : 1024 * kMiB)));
  while (max_bytes > kMiB && 2 * max_bytes > free_bytes / 2) max_bytes /= 2;
  return max_bytes;
}

SweepPlan PlanSweep(const JobArgs& args, size_t max_bytes, double stall_s) {
  SweepPlan plan;
  plan.sizes_bytes = args.quick ? std::vector<size_t>{kMiB, 16 * kMiB, 256 * kMiB} : AllReduceSizes(kMiB, max_bytes);
  plan.sizes_bytes.erase(std::remove_if(plan.sizes_bytes.begin(), plan.sizes_bytes.end(), [&](size_t s) { return s > max_bytes; }),
                         plan.sizes_bytes.end());
  plan.stall_timeout_s = stall_s;
  if (args.quick) {
    plan.warmup = 2;
    plan.iterations = 5;
  }
  return plan;
}

// 4. The sweep across all ranks.
void SweepWorld(RankJob& job, const SweepPlan& plan, size_t max_bytes) {
  job.progress.Phase("sweep");
  Status prepared = PrepareRanks(job.driver, job.process.group, max_bytes);
  if (!prepared.ok()) {
    job.state["sweep"] = {{"sizes", nlohmann::json::array()}, {"hung", false}, {"wrong_sum", false}, {"nccl_error", prepared.message()}};
  } else {
    Sweep(job.driver, job.nccl, job.process.group, plan, job.rank, &job.state, "sweep", job.progress, true);
  }
  // The world communicator is not destroyed: a sweep that stalled aborted it, and a healthy one
  // ends with the process, after the result is printed (KeepUntilExit in gpu_runtime.h).
}

// 5. The node alone. Fresh inputs for the node rank: the expected sum depends on the ranks.
void SweepNodeAlone(RankJob& job, const SweepPlan& plan, size_t max_bytes, nccl::ncclComm_t node_comm, const NodePlace& place) {
  job.progress.Phase("node_sweep");
  job.process.self().comm = node_comm;
  job.process.self().rank = place.local_rank;
  job.process.group.world_size = place.local_size;
  job.process.self().send = DeviceBuffer();
  job.process.self().receive = DeviceBuffer();
  Status prepared = PrepareRanks(job.driver, job.process.group, max_bytes);
  if (prepared.ok()) Sweep(job.driver, job.nccl, job.process.group, plan, job.rank, &job.state, "node_sweep", job.progress, false);
  else job.state["node_sweep"] = {{"sizes", nlohmann::json::array()}, {"nccl_error", prepared.message()}};
}

// Steps 1 to 5 on an opened rank; the state as the parent should read it.
nlohmann::json RunRank(RankJob& job, const JobArgs& args, GpuRuntime& runtime) {
  if (!JoinWorld(job)) return job.state;
  std::optional<NodePlace> place = FindNodeMates(job, args.Option("node-key", "node"));
  std::optional<nccl::ncclComm_t> node_comm;
  if (place) node_comm = MakeNodeCommunicator(job, *place);

  // A block exchange that stalled or failed aborted the world communicator (AllGatherBlocks): no
  // sweep on it, and nothing that would wait for its stream.
  if (job.process.self().comm == nullptr) {
    job.state["sweep"] = {{"sizes", nlohmann::json::array()}, {"hung", false}, {"wrong_sum", false},
                          {"nccl_error", "the world communicator was aborted after a block exchange failed: " +
                                             job.state.value("node_error", job.state.value("node_comm_error", std::string()))}};
    job.state["libraries"] = runtime.LibrariesJson();
    job.progress.Phase("aborted");
    return job.state;
  }

  const size_t max_bytes = MaxSweepBytes(args, job.driver);
  const SweepPlan plan = PlanSweep(args, max_bytes, job.stall_s);
  SweepWorld(job, plan, max_bytes);
  if (node_comm) SweepNodeAlone(job, plan, max_bytes, *node_comm, *place);
  job.state["method"] = "ncclAllReduce float32 sum, out of place, one rank per process (ncclCommInitRank, NCCL_COMM_ID "
                        "bootstrap); time_ms: CUDA events on this rank's stream around back-to-back iterations / "
                        "iterations; host_time_us: this rank's host clock from the first enqueue until its stream is seen "
                        "done / iterations (nccl-tests' clock, averaged over the ranks by the merge); busbw = "
                        "algbw*2(n-1)/n; bit-exact check against an order-independent exact sum";
  job.state["libraries"] = runtime.LibrariesJson();
  job.progress.Phase("done");
  return job.state;
}

}  // namespace

Result<nlohmann::json> AllReduceRankJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  const int rank = std::stoi(args.Option("rank", "0"));
  const int world = std::stoi(args.Option("world", "1"));
  const int local_rank = std::stoi(args.Option("local-rank", "0"));
  const double stall_s = std::stod(args.Option("stall-s", "30"));
  nlohmann::json state = OkEnvelope();
  state["rank"] = rank;
  state["world_size"] = world;
  Progress progress(args.Option("progress"), &state);
  progress.Phase("open");

  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &state);
  if (!runtime) return state;
  Result<std::unique_ptr<Nccl>> loaded = Nccl::Load(runtime->paths());
  if (!loaded.ok())
    return SkipEnvelope(T("NCCL не найдена (libnccl.so.2)", "NCCL not found (libnccl.so.2)"),
                        T("pip install torch приносит NCCL (пакет nvidia-nccl)", "pip install torch brings NCCL (the nvidia-nccl package)"),
                        loaded.status().message());
  // Never unloaded: the result is printed first (KeepUntilExit).
  std::shared_ptr<Nccl> kept = std::move(loaded).value();
  KeepUntilExit(kept);
  const Nccl& nccl = *kept;
  const int device = ChooseDevice(*runtime, nccl, local_rank, state);

  Result<ProcessRank> opened = OpenProcessRank(*runtime, device, rank, world);
  if (!opened.ok()) return FailEnvelope(T("не открылся контекст GPU", "could not open a GPU context"), {}, opened.status().message());
  ProcessRank process = std::move(opened).value();
  RankJob job{runtime->driver(), nccl, process, state, progress, rank, world, stall_s};
  return RunRank(job, args, *runtime);
}

}  // namespace labcheck::gpu
