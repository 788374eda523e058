// Native work that may crash or hang (a broken driver, NCCL) runs in a copy of this binary:
// `lab_check internal-child JOB [ARGS...]` runs a registered job, which prints one JSON object on
// the last line of stdout. The parent never loads the risky library itself.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "runner/cancel.h"
#include "runner/child_process.h"

namespace labcheck {

// A job returns its JSON result, or a Status whose message becomes the FAIL reason.
using ChildJobFn = std::function<Result<nlohmann::json>(const std::vector<std::string>& args)>;

// Registers a job under a name; modules call it from their Register*Checks().
void RegisterChildJob(const std::string& name, ChildJobFn fn);
// The entry point of `internal-child`: runs the job, prints its JSON (or {"error": ...}) as the
// last stdout line, and returns the process exit code (0 ok, 3 job error, 2 unknown job).
int RunChildJobMain(const std::string& name, const std::vector<std::string>& args);

struct ChildJobOutcome {
  ChildOutcome process;
  Result<nlohmann::json> result = Status::Error("not run");
};

// Runs JOB in a child copy of `self_exe` with the given timeout and extra environment.
ChildJobOutcome RunChildJob(const std::string& self_exe, const std::string& job,
                            const std::vector<std::string>& args, double timeout_s,
                            const CancelToken& cancel,
                            std::vector<std::pair<std::string, std::string>> set_env = {});

}  // namespace labcheck
