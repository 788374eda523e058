#include "calc/byte_units.h"

#include <fmt/format.h>

#include <cmath>

namespace labcheck::calc {
namespace {

// Two decimals for small figures, one for large: enough to compare, short enough to read.
std::string Short(double value) {
  return std::fabs(value) >= 100 ? fmt::format("{:.1f}", value) : fmt::format("{:.2f}", value);
}

double Round(double value, double step) { return std::round(value / step) * step; }

}  // namespace

std::string FormatGiBAndGB(double bytes) {
  return fmt::format("{} GiB ({} GB)", Short(ToGiB(bytes)), Short(ToGB(bytes)));
}

std::string FormatRange(const std::string& low, const std::string& high) {
  return low == high ? low : low + " – " + high;
}

std::string FormatParams(double params) {
  if (params >= 1e9) return fmt::format("{:.2f} B", params / 1e9);
  if (params >= 1e6) return fmt::format("{:.1f} M", params / 1e6);
  return fmt::format("{:.0f}", params);
}

nlohmann::json BytesJson(double bytes) {
  return {{"bytes", std::llround(bytes)}, {"gib", Round(ToGiB(bytes), 0.001)}, {"gb", Round(ToGB(bytes), 0.001)}};
}

}  // namespace labcheck::calc
