#include "gpu/collective/allreduce_attempts.h"

#include "platform/files.h"

namespace labcheck::gpu {

namespace {

AllReduceAttempt Attempt(const AllReduceLauncher& launch, const std::string& log_path, bool disable_p2p,
                         std::optional<nlohmann::json>* skipped) {
  EnvList env = {{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_FILE", log_path}};
  if (disable_p2p) env.emplace_back("NCCL_P2P_DISABLE", "1");
  ChildJobOutcome outcome = launch(env);
  AllReduceAttempt attempt;
  attempt.p2p_disabled = disable_p2p;
  const Result<std::string> log = ReadFile(log_path);  // none when NCCL never got to write one
  attempt.log = ParseNcclLog(log.ok() ? *log : std::string());
  const ChildOutcome& process = outcome.process;
  if (process.timed_out) {
    attempt.hung = true;
    attempt.process_error = process.Describe();
    return attempt;
  }
  if (!outcome.result.ok()) {
    attempt.crashed = process.term_signal != 0 || !process.started;
    attempt.process_error = outcome.result.status().message();
    return attempt;
  }
  const nlohmann::json& j = outcome.result.value();
  if (!j.is_object()) {
    attempt.process_error = "the all-reduce child printed no JSON object";
    return attempt;
  }
  attempt.payload = j;
  const std::string verdict = j.value("outcome", std::string("fail"));
  if (verdict == "skip") {
    *skipped = j;
    return attempt;
  }
  if (verdict != "ok") {
    attempt.process_error = j.value("error", std::string("the all-reduce child failed"));
    return attempt;
  }
  const nlohmann::json sweep = j.value("sweep", nlohmann::json::object());
  attempt.hung = sweep.value("hung", false);
  attempt.nccl_error = sweep.value("nccl_error", std::string());
  attempt.wrong_sum = sweep.value("wrong_sum", false);
  return attempt;
}

}  // namespace

nlohmann::json AllReduceAttempt::ToJson() const {
  nlohmann::json sweep = payload.value("sweep", nlohmann::json::object());
  nlohmann::json j = {{"sizes", sweep.value("sizes", nlohmann::json::array())},
                      {"transport", TransportSummary(log)},
                      {"transport_paths", std::vector<std::string>(log.paths.begin(), log.paths.end())},
                      {"hung", hung},
                      {"crashed", crashed},
                      {"nccl_error", nccl_error},
                      {"wrong_sum", wrong_sum},
                      {"p2p_disabled", p2p_disabled},
                      {"process_error", process_error},
                      {"nccl_warnings", log.warnings},
                      {"nccl_log_version", log.version}};
  if (!ok()) j["nccl_last_log_line"] = log.last_line;
  return j;
}

AllReduceRun RunAllReduceWithRetry(const AllReduceLauncher& launch, const std::string& log_dir,
                                   const AllReduceLauncher& compare) {
  AllReduceRun run;
  run.first = Attempt(launch, log_dir + "/nccl-first.log", false, &run.skipped);
  if (run.skipped) return run;
  std::optional<nlohmann::json> ignored;
  if (!run.first.ok()) {
    run.retry = Attempt(launch, log_dir + "/nccl-retry.log", true, &ignored);
  } else if (compare && run.first.payload.value("ranks", 0) > 1) {
    run.comparison = Attempt(compare, log_dir + "/nccl-compare.log", true, &ignored);
  }
  return run;
}

}  // namespace labcheck::gpu
