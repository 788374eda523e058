// Byte counts are shown in both binary and decimal units, named: GiB (2^30) is what nvidia-smi and
// PyTorch print, GB (10^9) is what cards and model cards are sold with. Mixing them is a 7% error.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/units.h"

namespace labcheck::calc {

// kBytesPerGiB and kBytesPerGB are core/units.h's: one definition in the whole tree.

// Bytes per BF16 (and FP16) value: weights, activations and the KV cache at 16 bits.
inline constexpr double kBf16 = 2;
// Bytes per FP32 value: master weights, optimizer states, norms' saved inputs, softmax statistics.
inline constexpr double kFp32 = 4;

inline double ToGiB(double bytes) { return bytes / kBytesPerGiB; }
inline double ToGB(double bytes) { return bytes / kBytesPerGB; }

// "15.26 GiB (16.38 GB)"
std::string FormatGiBAndGB(double bytes);
// "low – high", or the one figure when both ends print alike ("70.91 GiB", not "70.91 GiB – 70.91 GiB").
std::string FormatRange(const std::string& low, const std::string& high);
// "8.19 B" for a parameter count.
std::string FormatParams(double params);
// {"bytes": 16384000000, "gib": 15.26, "gb": 16.38}
nlohmann::json BytesJson(double bytes);

}  // namespace labcheck::calc
