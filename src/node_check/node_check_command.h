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

namespace labcheck::node_check {

// 3 also when --out or --prometheus cannot be written, as the check command's report (README).
inline constexpr int kExitHealthy = 0, kExitUnhealthy = 1, kExitUsage = 2, kExitCannotTell = 3, kExitNotWritten = 3;

void AddNodeCheckSubcommand(CLI::App& app, const Lang* lang, Lang help_lang, const std::string& self_exe, int* exit_code);

}  // namespace labcheck::node_check
