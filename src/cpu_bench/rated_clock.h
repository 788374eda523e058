// The clock a CPU model is rated to reach (data/cpu_clocks.json, with vendor sources), and the
// nominal clock Intel writes into the brand string ("... CPU @ 3.00GHz"): what the theoretical
// peak can use where a VM hides cpufreq and /proc/cpuinfo shows only the nominal or TSC rate.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/text.h"

namespace labcheck::cpu_bench {

struct RatedClock {
  double mhz = 0;
  std::string model;   // the table's "match" that was found in the model name
  Text source;         // the vendor page, with its URL ("sources_ru" for Russian, else the English)
};

// The rated boost of the model named in `model_name` (/proc/cpuinfo "model name"); the longest
// whole-word match of the embedded table wins. Empty for a model not in the table.
std::optional<RatedClock> RatedBoostClock(std::string_view model_name);
// The same lookup over a table given as JSON text (for the tests).
std::optional<RatedClock> RatedBoostClockIn(std::string_view table_json, std::string_view model_name);

// "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz" → 3000; empty when the name carries no clock.
std::optional<double> BrandStringMhz(std::string_view model_name);

}  // namespace labcheck::cpu_bench
