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
#include <thread>

#include "gpu/collective/allreduce_json.h"
#include "gpu/collective/allreduce_math.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/rank_comm.h"
#include "platform/files.h"

namespace labcheck::gpu {

namespace {

constexpr size_t kMiB = 1u << 20;
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
  const CudaDriver& driver = runtime->driver();
  const int device = local_rank % runtime->device_count();
  char name[256] = {};
  cuda::CUdevice handle = 0;
  if (driver.api().cuDeviceGet(&handle, device) == cuda::kSuccess) driver.api().cuDeviceGetName(name, sizeof name, handle);
  state["device"] = device;
  state["device_count"] = runtime->device_count();
  state["gpu_name"] = name;
  state["nccl_version"] = nccl.VersionText();
  if (local_rank >= runtime->device_count()) state["shares_gpu"] = true;  // more processes than GPUs here

  Result<ProcessRank> opened = OpenProcessRank(*runtime, device, rank, world);
  if (!opened.ok()) return FailEnvelope(T("не открылся контекст GPU", "could not open a GPU context"), {}, opened.status().message());
  ProcessRank process = std::move(opened).value();

  // 1. The world communicator. NCCL_COMM_ID is set: every rank gets the same id without talking.
  progress.Phase("init");
  nccl::ncclUniqueId id{};
  nccl::ncclResult_t got = nccl.api().ncclGetUniqueId(&id);
  Status joined = got == nccl::kSuccess ? JoinCommunicator(nccl, process, id, rank, world)
                                        : Status::Error("ncclGetUniqueId failed: " + nccl.Describe(got));
  if (!joined.ok()) {
    // Name this rank's view of the world: a mismatch of world sizes fails here.
    state["init_error"] = joined.message() + "; this process: rank " + std::to_string(rank) + " of " + std::to_string(world);
    progress.Phase("init_failed");
    return state;
  }

  // 2. Who shares this node.
  progress.Phase("nodes");
  Result<std::vector<char>> key_block = TextBlock(args.Option("node-key", "node"), kNodeKeyBytes);
  Result<std::vector<char>> keys = key_block.ok() ? AllGatherBlocks(driver, nccl, process, *key_block, kNodeKeyBytes, stall_s)
                                                  : Result<std::vector<char>>(key_block.status());
  std::optional<NodePlace> place;
  if (keys.ok()) {
    std::vector<std::string> all;
    for (int r = 0; r < world; ++r) all.push_back(BlockText(*keys, r, kNodeKeyBytes));
    place = PlaceInNodes(all, rank);
    state["node"] = {{"index", place->index}, {"local_rank", place->local_rank}, {"local_size", place->local_size},
                     {"nodes", place->nodes}};
  } else {
    state["node_error"] = keys.status().message();
  }

  // 3. The node's own communicator, from its first rank's unique id.
  std::optional<nccl::ncclComm_t> node_comm;
  if (place) {
    progress.Phase("node_comm");
    unsetenv("NCCL_COMM_ID");  // from here on ncclGetUniqueId makes a fresh random id
    std::vector<char> mine(sizeof(nccl::ncclUniqueId), '\0');
    nccl::ncclUniqueId node_id{};
    Status made = Status::Ok();
    if (rank == place->leader) {
      nccl::ncclResult_t r = nccl.api().ncclGetUniqueId(&node_id);
      if (r != nccl::kSuccess) made = Status::Error("ncclGetUniqueId failed: " + nccl.Describe(r));
      std::memcpy(mine.data(), &node_id, sizeof node_id);
    }
    Result<std::vector<char>> ids = AllGatherBlocks(driver, nccl, process, mine, sizeof node_id, stall_s);
    if (made.ok() && ids.ok()) {
      std::memcpy(&node_id, ids->data() + place->leader * sizeof node_id, sizeof node_id);
      nccl::ncclComm_t comm = nullptr;
      nccl::ncclResult_t r = nccl.api().ncclCommInitRank(&comm, place->local_size, node_id, place->local_rank);
      if (r == nccl::kSuccess) node_comm = comm;
      else made = Status::Error("ncclCommInitRank (node) failed: " + nccl.Describe(r));
    }
    if (!ids.ok()) made = ids.status();
    if (!made.ok()) state["node_comm_error"] = made.message();
  }

  // A block exchange that stalled or failed aborted the world communicator (AllGatherBlocks): no
  // sweep on it, and nothing that would wait for its stream.
  if (process.self().comm == nullptr) {
    state["sweep"] = {{"sizes", nlohmann::json::array()}, {"hung", false}, {"wrong_sum", false},
                      {"nccl_error", "the world communicator was aborted after a block exchange failed: " +
                                         state.value("node_error", state.value("node_comm_error", std::string()))}};
    state["libraries"] = runtime->LibrariesJson();
    progress.Phase("aborted");
    return state;
  }

  // 4. The sweep across all ranks.
  size_t free_bytes = 0, total = 0;
  driver.api().cuMemGetInfo(&free_bytes, &total);
  size_t max_bytes = std::stoull(args.Option("max-bytes", std::to_string(args.quick ? 256 * kMiB : 1024 * kMiB)));
  while (max_bytes > kMiB && 2 * max_bytes > free_bytes / 2) max_bytes /= 2;  // send + receive within half
  SweepPlan plan;
  plan.sizes_bytes = args.quick ? std::vector<size_t>{kMiB, 16 * kMiB, 256 * kMiB} : AllReduceSizes(kMiB, max_bytes);
  plan.sizes_bytes.erase(std::remove_if(plan.sizes_bytes.begin(), plan.sizes_bytes.end(), [&](size_t s) { return s > max_bytes; }),
                         plan.sizes_bytes.end());
  plan.stall_timeout_s = stall_s;
  if (args.quick) {
    plan.warmup = 2;
    plan.iterations = 5;
  }
  progress.Phase("sweep");
  Status prepared = PrepareRanks(driver, process.group, max_bytes);
  if (!prepared.ok()) {
    state["sweep"] = {{"sizes", nlohmann::json::array()}, {"hung", false}, {"wrong_sum", false}, {"nccl_error", prepared.message()}};
  } else {
    Sweep(driver, nccl, process.group, plan, rank, &state, "sweep", progress, true);
  }
  // The world communicator is not destroyed: a sweep that stalled aborted it, and a healthy one
  // ends with the process, after the result is printed (KeepUntilExit in gpu_runtime.h).

  // 5. The node alone. Fresh inputs for the node rank: the expected sum depends on the ranks.
  if (node_comm) {
    progress.Phase("node_sweep");
    process.self().comm = *node_comm;
    process.self().rank = place->local_rank;
    process.group.world_size = place->local_size;
    process.self().send = DeviceBuffer();
    process.self().receive = DeviceBuffer();
    prepared = PrepareRanks(driver, process.group, max_bytes);
    if (prepared.ok()) Sweep(driver, nccl, process.group, plan, rank, &state, "node_sweep", progress, false);
    else state["node_sweep"] = {{"sizes", nlohmann::json::array()}, {"nccl_error", prepared.message()}};
  }
  state["method"] = "ncclAllReduce float32 sum, out of place, one rank per process (ncclCommInitRank, NCCL_COMM_ID "
                    "bootstrap); time_ms: CUDA events on this rank's stream around back-to-back iterations / "
                    "iterations; host_time_us: this rank's host clock from the first enqueue until its stream is seen "
                    "done / iterations (nccl-tests' clock, averaged over the ranks by the merge); busbw = "
                    "algbw*2(n-1)/n; bit-exact check against an order-independent exact sum";
  state["libraries"] = runtime->LibrariesJson();
  progress.Phase("done");
  return state;
}

}  // namespace labcheck::gpu
