#include "cluster/rank_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpu/collective/nccl_log.h"
#include "gpu/jobs/gpu_jobs.h"
#include "platform/files.h"

namespace labcheck::cluster {

namespace {

// What NCCL's INFO log says about the network: "NET/IB/0/GDRDMA", "NET/Socket/1".
nlohmann::json TransportJson(const std::string& log_text) {
  const gpu::NcclLogSummary log = gpu::ParseNcclLog(log_text);
  std::string net;
  bool gdrdma = false;
  for (const std::string& path : log.paths) {
    if (path.rfind("NET/", 0) != 0) continue;
    std::string kind = path.substr(4, path.find('/', 4) - 4);  // "IB", "Socket", a plugin's name
    if (net.find(kind) == std::string::npos) net += (net.empty() ? "" : "+") + kind;
    gdrdma = gdrdma || path.find("GDRDMA") != std::string::npos;
  }
  std::vector<std::string> warnings(log.warnings.begin(), log.warnings.begin() + std::min<size_t>(log.warnings.size(), 3));
  std::vector<std::string> paths(log.paths.begin(), log.paths.end());
  if (paths.size() > 12) paths.resize(12);
  return {{"summary", gpu::TransportSummary(log)}, {"paths", paths}, {"net", net}, {"gdrdma", gdrdma},
          {"warnings", warnings}, {"log_lines", log.lines}, {"last_line", log.last_line.substr(0, 300)}};
}

std::string Cut(const std::string& text, size_t n) { return text.size() > n ? text.substr(text.size() - n) : text; }

}  // namespace

nlohmann::json RankBlock(const RankFacts& facts, const ChildJobOutcome& sweep, const std::string& progress,
                         const std::string& nccl_log, double sweep_timeout_s) {
  nlohmann::json block = facts.ToJson();
  nlohmann::json state = nlohmann::json::object();
  nlohmann::json child = nlohmann::json::object();
  const ChildOutcome& process = sweep.process;
  if (sweep.result.ok() && sweep.result->is_object()) {
    state = *sweep.result;
    const std::string outcome = state.value("outcome", std::string("fail"));
    child["ended"] = outcome == "ok" ? "ok" : outcome == "skip" ? "skipped" : "failed";
  } else {
    nlohmann::json saved = nlohmann::json::parse(progress, nullptr, false);
    if (saved.is_object()) state = saved;
    if (process.timed_out) {
      child["ended"] = "hung";
      child["describe"] = fmt::format("no result after {:g} s; stopped", sweep_timeout_s);
    } else if (process.term_signal != 0) {
      child["ended"] = "died";
      child["signal"] = process.term_signal;
      child["describe"] = process.Describe();
    } else if (process.cancelled) {
      child["ended"] = "cancelled";
    } else {
      child["ended"] = "failed";
      child["describe"] = sweep.result.ok() ? "no JSON object" : Cut(sweep.result.status().message(), 400);
    }
  }
  child["phase"] = state.value("phase", std::string("not started"));
  // The size it was running when it stopped (the child writes it before each size, and replaces it
  // with the figures after).
  const std::string phase = child["phase"].get<std::string>();
  if ((phase == "sweep" || phase == "node_sweep") && state.contains(phase) && state[phase].contains("running_bytes"))
    child["running_bytes"] = state[phase]["running_bytes"];
  block["child"] = child;
  for (const char* key : {"gpu_name", "device", "device_count", "nccl_version", "node", "sweep", "node_sweep",
                          "init_error", "node_error", "node_comm_error", "shares_gpu", "reason", "hint", "error"})
    if (state.contains(key)) block[key] = state[key];
  if (block.contains("error") && block["error"].is_string()) block["error"] = Cut(block["error"].get<std::string>(), 600);
  block["transport"] = TransportJson(nccl_log);
  return block;
}

RankRunResult RunRank(const LaunchEnv& launch, const RankFacts& facts, const Rendezvous& rendezvous,
                      const RankRunOptions& options, const CancelToken& cancel) {
  RankRunResult result;
  const std::string dir = options.work_dir;
  const std::string progress_path = dir + "/progress.json", log_path = dir + "/nccl.log";
  std::vector<std::string> args = {"--rank", std::to_string(launch.rank), "--world", std::to_string(launch.world_size),
                                   "--local-rank", std::to_string(launch.local_rank), "--node-key", facts.node_key,
                                   "--progress", progress_path, "--stall-s", fmt::format("{:g}", options.stall_s)};
  if (options.quick) args.push_back("--quick");
  if (options.max_bytes) {
    args.push_back("--max-bytes");
    args.push_back(std::to_string(*options.max_bytes));
  }
  ChildJobOutcome sweep = RunChildJob(options.self_exe, gpu::kAllReduceRankJob, args, options.sweep_timeout_s, cancel,
                                      {{"NCCL_COMM_ID", rendezvous.CommId(kSweepPortOffset)},
                                       {"NCCL_DEBUG", "INFO"},
                                       {"NCCL_DEBUG_FILE", log_path}});
  Result<std::string> progress = ReadFile(progress_path);
  Result<std::string> log = ReadFile(log_path);
  result.mine = RankBlock(facts, sweep, progress.ok() ? *progress : "", log.ok() ? *log : "", options.sweep_timeout_s);
  if (cancel.cancelled()) {
    result.gather_error = "interrupted";
    return result;
  }

  // The gather waits for the slowest rank's sweep child to end (its timeout at worst), plus a margin
  // for ranks that started late and for starting the gather child itself.
  const std::string block_path = dir + "/block.json", out_path = dir + "/gathered.json";
  Status written = WriteFileAtomically(block_path, result.mine.dump());
  if (!written.ok()) {
    result.gather_error = written.message();
    return result;
  }
  const double wait_s = options.sweep_timeout_s + std::clamp(options.sweep_timeout_s / 4, 10.0, 60.0);
  ChildJobOutcome gather = RunChildJob(
      options.self_exe, gpu::kClusterGatherJob,
      {"--rank", std::to_string(launch.rank), "--world", std::to_string(launch.world_size), "--local-rank",
       std::to_string(launch.local_rank), "--block", block_path, "--out", out_path, "--wait-s", fmt::format("{:g}", wait_s)},
      wait_s + 10, cancel, {{"NCCL_COMM_ID", rendezvous.CommId(kGatherPortOffset)}});
  if (!gather.result.ok() || gather.result->value("outcome", std::string()) != "ok") {
    result.gather_error = gather.process.timed_out ? fmt::format("no answer from every rank within {:g} s", wait_s + 10)
                          : gather.result.ok()     ? gather.result->value("error", std::string("the gather failed"))
                                                   : Cut(gather.result.status().message(), 400);
    return result;
  }
  if (launch.rank == 0) {
    Result<std::string> text = ReadFile(out_path);
    nlohmann::json all = text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (all.is_array()) result.gathered = all;
    else result.gather_error = "rank 0 could not read the gathered blocks";
  }
  return result;
}

}  // namespace labcheck::cluster
