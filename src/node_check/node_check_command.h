// lab_check node-check: the gate a scheduler runs on a node before a job lands there (Slurm's
// HealthCheckProgram, a prolog; docs/cluster-gate.md). One child job (gpu-node-check) gathers the
// facts in seconds; the verdict (node_verdict.h) prints as one line, `OK` or `FAIL: GPU3 …`, or
// with --json as one line of JSON. Exit 0 healthy, 1 unhealthy (drain it), 2 bad usage, 3 cannot
// tell (no driver, no GPU). --drain runs Slurm's drain itself and says what it ran. No Python is
// started and no file written unless --out asks.
#pragma once
#include <string>

#include "core/cli_forward.h"

#include "core/text.h"
#include "node_check/slurm/slurm_drain.h"

namespace labcheck::node_check {

// 3 also when --out or --prometheus cannot be written, as the check command's report (README).
// 4: unhealthy, and --drain could not drain it (no scontrol, scontrol failed) or the drain cap held
// it back; or a resume that was due failed: a health check wrapper that turns 1 into 0 passes 4
// on, so that slurmd logs a failed health check.
inline constexpr int kExitHealthy = 0, kExitUnhealthy = 1, kExitUsage = 2, kExitCannotTell = 3, kExitNotWritten = 3,
                     kExitDrainFailed = 4;

// slurmd kills HealthCheckProgram after 60 s (slurm.conf: HealthCheckProgram, "killed if it does
// not terminate normally within 60 seconds"). After node-check's own deadline the runner needs up
// to 2 s (SIGTERM, then SIGKILL) and 5 s more to give up on a child stuck in the driver
// (ChildSpec::give_up_after_kill_s), and --drain's Slurm calls up to 10 s together (kSlurmBudgetS): 30 + 2 + 5 + 10
// leaves 13 s for start-up and the report, so a hung GPU is still judged and drained. A check done
// early leaves the Slurm calls more (slurm_policy.h, HealthCheckSlurmBudgetS).
inline constexpr double kHealthCheckTimeoutS = 30, kDefaultTimeoutS = 60;
// --memtest SECONDS: at most an hour; under slurmd's health check at most 10 s, inside the gate's
// own 30 s with the rest of the gate (about 10 s on an 8-GPU node); elsewhere the child is given
// the test's time and this much more for its setup (allocation, module load).
inline constexpr double kMemtestMostS = 3600, kMemtestInHealthCheckS = 10, kMemtestSetupS = 30;

// The health check's context: slurmd sets SLURMD_NODENAME for HealthCheckProgram, prologs and
// epilogs; only prologs, epilogs and job steps have SLURM_JOB_ID.
bool InHealthCheckContext(const EnvLookup& env);

void AddNodeCheckSubcommand(CLI::App& app, const Lang* lang, Lang help_lang, const std::string& self_exe, int* exit_code);

}  // namespace labcheck::node_check
