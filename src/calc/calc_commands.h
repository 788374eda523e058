// Entry point of the calculators: `lab_check vram|kv|serve|cost|plan`. The app (src/app) calls
// AddCalcSubcommands once while building its command line.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cli_forward.h"

#include "core/text.h"

namespace labcheck::calc {

struct LiveGpu {
  std::string name;
  double memory_total_gib = 0;
};

struct CalcEnvironment {
  const Lang* lang = nullptr;  // the parsed top-level --lang (read it when the callback runs)
  // Live inventory for `plan`, supplied later by the GPU module; may be empty or unset (no GPUs):
  std::function<std::vector<LiveGpu>()> live_gpus;
  // The vLLM version installed in the chosen Python (`serve` follows its profile rule); may be unset
  // or return nullopt (none installed, or no Python).
  std::function<std::optional<std::string>()> installed_vllm_version;
  std::string last_report_path = "journal/lab-report.json";
};

// Adds vram, kv, serve, cost, plan as CLI11 subcommands of `app`. When one is parsed and run,
// its callback prints to stdout (or JSON with --json) and stores the exit code in *exit_code:
// 0 ok, 2 bad input (unknown model, malformed config: a message naming what was wrong and what to do,
// e.g. the closest catalog names, printed on stderr).
void AddCalcSubcommands(CLI::App& app, CalcEnvironment env, int* exit_code);

// Parses `args` (what follows "lab_check", e.g. {"vram", "7B", "--json"}) as one calculator
// command on the subcommands above and runs it; a parse error is printed by CLI11 itself
// (`app.exit`; lab_check's own, translated wording is app.cpp's). Returns the exit code. For callers that do not build a CLI11 command line themselves (the tests:
// each unit that includes CLI11 compiles about 8 s more, issue 24).
int RunCalcCommandLine(const std::vector<std::string>& args, CalcEnvironment env);

}  // namespace labcheck::calc
