// NVLink error counters (the child's "nvlink_errors" per card, gpu/health/nvlink_errors.h). Growth
// during the check: only lab_check's own work ran on the links, so any replay, recovery or CRC
// error then is a link failing now: a finding naming the card and the link. Totals since the
// driver loaded above --nvlink-errors-warn are a warning (a link that erred once, maybe long ago).
#include <fmt/format.h>

#include "node_check/findings/findings.h"

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

// Calls `each(card, link, counter, value)` for every counter of `suffix` ("_growth" or "").
template <typename Each>
void ForEachCounter(const nlohmann::json& inventory, const std::string& suffix, Each each) {
  for (const nlohmann::json& g : inventory.value("gpus", nlohmann::json::array())) {
    const nlohmann::json& links = g.value("nvlink_errors", nlohmann::json(nullptr));
    if (!links.is_array()) continue;
    for (const nlohmann::json& link : links)
      for (const CounterName& c : kCounters)
        each(g.value("index", 0), link.value("link", -1), c, link.value(std::string(c.key) + suffix, 0ULL));
  }
}

}  // namespace

std::vector<Finding> NvLinkErrorWarnings(const nlohmann::json& inventory, const NodeExpectations& expect) {
  std::vector<Finding> warnings;
  ForEachCounter(inventory, "", [&](int gpu, int n, const CounterName& c, unsigned long long total) {
    if (total <= expect.nvlink_errors_warn) return;
    warnings.push_back({gpu, "nvlink_errors_total",
                        T(fmt::format("NVLink {}: {} {} с загрузки драйвера", n, c.ru, total),
                          fmt::format("NVLink {}: {} {} since the driver loaded", n, total, c.en))});
  });
  return warnings;
}

void AddNvLinkErrorFindings(const nlohmann::json& inventory, std::vector<Finding>& out) {
  ForEachCounter(inventory, "_growth", [&](int gpu, int n, const CounterName& c, unsigned long long growth) {
    if (growth == 0) return;
    out.push_back({gpu, "nvlink_errors", T(fmt::format("NVLink {}: {} +{} за проверку", n, c.ru, growth),
                                           fmt::format("NVLink {}: {} grew by {} during the check", n, c.en, growth))});
  });
}

}  // namespace labcheck::node_check
