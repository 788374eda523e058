// lab_check memtest [--gpus LIST] [--minutes N | --passes N] [--size SIZE | --fraction F]
// [--self-test] [--json] [--out PATH]: the memory test (gpu/memtest/) on every selected card at
// once, in a child (`internal-child gpu-memtest`) that writes each pattern's result to a file as
// it goes, so Ctrl-C keeps what was found (exit 130). The default length is memtest_vulkan's
// "standard 5-minute test" of GPU time; a time-bound run of two minutes or more ends with the bit
// fade (write, wait, check), its two waits a tenth of the run each.
#pragma once
#include <optional>
#include <string>

#include "core/cli_forward.h"
#include "core/text.h"

namespace labcheck {

void AddMemtestSubcommand(CLI::App& app, const Lang* lang, int* exit_code, std::string self_exe);

// "24G", "512M", "1.5GiB", "1073741824" → bytes (binary units); nullopt for anything else.
std::optional<unsigned long long> ParseByteSize(const std::string& text);

// How a time-bound run of `seconds` is split: the passes' device time and the bit fade's wait per
// polarity (0: no bit fade, for runs under two minutes).
struct MemtestSchedule {
  double pass_seconds = 0;
  double fade_wait_s = 0;
};
MemtestSchedule ScheduleFor(double seconds);

}  // namespace labcheck
