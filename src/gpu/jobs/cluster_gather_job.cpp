// Child job "gpu-cluster-gather": after the sweep, whatever happened in it, every rank's parent
// starts this job to hand its piece of the report to rank 0 through a fresh communicator
// (NCCL_COMM_ID on the gather port): ncclAllGather of one fixed-size block of JSON per rank.
// Rank 0 writes the gathered blocks, as a JSON array in rank order, to --out; the others print
// only their outcome. A fresh process and communicator, because the sweep's may be the thing
// that broke. Arguments: --rank R --world N --local-rank L --block FILE --out FILE --wait-s S.
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/rank_comm.h"
#include "platform/files.h"

namespace labcheck::gpu {

Result<nlohmann::json> ClusterGatherJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  const int rank = std::stoi(args.Option("rank", "0"));
  const int world = std::stoi(args.Option("world", "1"));
  const int local_rank = std::stoi(args.Option("local-rank", "0"));
  const double wait_s = std::stod(args.Option("wait-s", "60"));
  Result<std::string> text = ReadFile(args.Option("block"));
  if (!text.ok()) return text.status();
  Result<std::vector<char>> block = TextBlock(*text, kClusterBlockBytes);
  if (!block.ok()) return block.status();

  nlohmann::json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  Result<std::unique_ptr<Nccl>> loaded = Nccl::Load(runtime->paths());
  if (!loaded.ok()) return loaded.status();
  std::shared_ptr<Nccl> nccl = std::move(loaded).value();
  KeepUntilExit(nccl);  // never unloaded: the result is printed first
  Result<ProcessRank> process = OpenProcessRank(*runtime, local_rank % runtime->device_count(), rank, world);
  if (!process.ok()) return process.status();
  nccl::ncclUniqueId id{};
  nccl::ncclResult_t got = nccl->api().ncclGetUniqueId(&id);
  if (got != nccl::kSuccess) return Status::Error("ncclGetUniqueId failed: " + nccl->Describe(got));
  Status joined = JoinCommunicator(*nccl, process.value(), id, rank, world);
  if (!joined.ok()) return joined;
  // A gather that stalls aborts the communicator itself (AllGatherBlocks); a healthy one ends with
  // the process. Never ncclCommDestroy here: on a rank whose peer never came it would wait forever.
  Result<std::vector<char>> all = AllGatherBlocks(runtime->driver(), *nccl, process.value(), *block, kClusterBlockBytes, wait_s);
  if (!all.ok()) return all.status();
  nlohmann::json out = OkEnvelope();
  if (rank == 0) {
    nlohmann::json blocks = nlohmann::json::array();
    for (int r = 0; r < world; ++r) {
      nlohmann::json parsed = nlohmann::json::parse(BlockText(*all, r, kClusterBlockBytes), nullptr, false);
      blocks.push_back(parsed.is_discarded() ? nlohmann::json(nullptr) : parsed);
    }
    Status written = WriteFileAtomically(args.Option("out"), blocks.dump());
    if (!written.ok()) return written;
    out["gathered"] = world;
  }
  return out;
}

}  // namespace labcheck::gpu
