// Byte and rate conversions, named after their units so a figure's unit is never a guess.
// GiB = 2^30 bytes (memory, disks as `df -h` shows them); GB = 10^9 bytes (rates, disk vendors).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace labcheck {

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kBytesPerMiB = 1024.0 * 1024.0;
inline constexpr double kBytesPerGB = 1e9;
// Buffer sizes in bytes (`256 * kMiB`): an integer, where kBytesPerMiB is for rates.
inline constexpr std::size_t kMiB = std::size_t{1} << 20;

inline double BytesToGiB(uint64_t bytes) { return static_cast<double>(bytes) / kBytesPerGiB; }

// A figure with `digits` decimals: "23.5". Reports use a dot in both languages.
inline std::string Fixed(double value, int digits = 1) { return fmt::format("{:.{}f}", value, digits); }

// "23.5 GiB"
inline std::string GiBText(uint64_t bytes) { return Fixed(BytesToGiB(bytes)) + " GiB"; }

}  // namespace labcheck
