// lab_check burn [--minutes N | --quick] [--gpus LIST] [--memtest] [--json] [--out PATH]: all
// selected GPUs under the BF16 GEMM at once, a sample per GPU every second, verdicts
// (gpu/burn/burn_verdicts.h); with --memtest the memory test (gpu/memtest/) runs beside the load
// on the memory it leaves, and gpu.memtest joins gpu.burn in the report.
// The load runs in a child (`internal-child gpu-burn`) that appends its timeline to a file as it
// goes, so Ctrl-C, a timeout or a crash still leaves every sample taken for the report.
#pragma once
#include <string>

#include "core/cli_forward.h"

#include "core/text.h"

namespace labcheck {

void AddBurnSubcommand(CLI::App& app, const Lang* lang, int* exit_code, std::string self_exe);

}  // namespace labcheck
