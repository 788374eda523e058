// Correctable ECC errors since the driver loaded (gpu.health's ecc_corrected_volatile) above the
// site's threshold: a warning naming the card and the count, never a failure. Growing correctable
// errors come before the uncorrectable one that kills a job (Azure's NHC, Meta's gcm and DCGM watch
// them), but a card with many of them still computes right, so the node stays in service; the
// uncorrected ones still fail it (health_findings.cpp). Its severity is `monitor`
// (data/finding_codes.json, LC208): reported, never failing.
#include <optional>

#include <fmt/format.h>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

// The count in `facts[key]` when it is over `threshold`.
std::optional<unsigned long long> Over(const nlohmann::json& facts, const char* key, unsigned long long threshold) {
  const nlohmann::json& count = facts.value(key, nlohmann::json(nullptr));
  if (!count.is_number() || count.get<double>() <= static_cast<double>(threshold)) return std::nullopt;
  return static_cast<unsigned long long>(count.get<double>());
}

}  // namespace

std::vector<Finding> CorrectableErrorWarnings(const nlohmann::json& health, const NodeExpectations& expect) {
  std::vector<Finding> warnings;
  const nlohmann::json gpus = health.value("gpus", nlohmann::json::array());
  for (size_t k = 0; k < gpus.size(); ++k) {
    const nlohmann::json facts = gpus[k].value("facts", nlohmann::json::object());
    const int gpu = gpus[k].value("index", static_cast<int>(k));
    if (const auto n = Over(facts, "ecc_corrected_volatile", expect.ecc_corrected_warn))
      warnings.push_back({gpu, "ecc_corrected",
                          T(fmt::format("исправимых ошибок ECC {} с загрузки драйвера (порог {})", *n, expect.ecc_corrected_warn),
                            fmt::format("{} corrected ECC errors since the driver loaded (threshold {})", *n, expect.ecc_corrected_warn))});
    if (const auto n = Over(facts, "sram_corrected_volatile", expect.sram_corrected_warn))
      warnings.push_back({gpu, "sram_corrected",
                          T(fmt::format("исправимых ошибок ECC в SRAM {} с загрузки драйвера (порог {})", *n, expect.sram_corrected_warn),
                            fmt::format("{} corrected SRAM ECC errors since the driver loaded (threshold {})", *n,
                                        expect.sram_corrected_warn))});
  }
  return warnings;
}

}  // namespace labcheck::node_check
