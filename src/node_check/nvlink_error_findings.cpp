// NVLink error counters that grew during the check (the child's "nvlink_errors" per card,
// gpu/health/nvlink_errors.h): only lab_check's own work ran on the links, so any replay, recovery
// or CRC error then is a link failing now: a finding naming the card and the link. Totals since
// boot are history (a reset or an old event); they are in --json, not judged here.
#include <fmt/format.h>

#include "node_check/findings.h"

namespace labcheck::node_check {

namespace {

struct CounterName {
  const char* key;
  const char* ru;
  const char* en;
};
constexpr CounterName kCounters[] = {{"replay", "повторов передачи", "replay errors"},
                                     {"recovery", "восстановлений линка", "recovery errors"},
                                     {"crc_flit", "ошибок CRC (flit)", "flit CRC errors"},
                                     {"crc_data", "ошибок CRC (данные)", "data CRC errors"}};

}  // namespace

void AddNvLinkErrorFindings(const nlohmann::json& inventory, std::vector<Finding>& out) {
  for (const nlohmann::json& g : inventory.value("gpus", nlohmann::json::array())) {
    const nlohmann::json& links = g.value("nvlink_errors", nlohmann::json(nullptr));
    if (!links.is_array()) continue;
    for (const nlohmann::json& link : links) {
      for (const CounterName& c : kCounters) {
        const unsigned long long growth = link.value(std::string(c.key) + "_growth", 0ULL);
        if (growth == 0) continue;
        const int n = link.value("link", -1);
        out.push_back({g.value("index", 0), "nvlink_errors",
                       T(fmt::format("NVLink {}: {} +{} за проверку", n, c.ru, growth),
                         fmt::format("NVLink {}: {} grew by {} during the check", n, c.en, growth))});
      }
    }
  }
}

}  // namespace labcheck::node_check
