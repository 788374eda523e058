// The driver's messages a gate acts on that are neither XIDs nor about one card it can name
// (gpu/health/driver_messages.h). NVLink setup that could not read which links got past receiver
// detection ("NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask
// failed!") leaves the GPUs' NVLink peers unset until the driver initialises them again: leptonai/
// gpud marks the node unhealthy with a reboot for it (components/accelerator/nvidia/nvlink/kmsg.go),
// and so does this gate (LC306). The line names no card.
#include <fmt/format.h>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {

void AddDriverMessageFindings(const nlohmann::json& health, std::vector<Finding>& out) {
  const nlohmann::json& messages = health.value("driver_kernel_log", nlohmann::json(nullptr));
  if (!messages.is_array()) return;
  for (const nlohmann::json& m : messages) {
    if (m.value("kind", "") != "nvlink_rx_detect_failed") continue;
    const std::string line = m.value("line", "");
    out.push_back({-1, "nvlink_rx_detect_failed",
                   T(fmt::format("драйвер не настроил NVLink между GPU (журнал ядра: {}): перезагрузите узел", line),
                     fmt::format("the driver could not set up NVLink between the GPUs (kernel log: {}): reboot", line))});
    return;  // one finding: the line names no card
  }
}

}  // namespace labcheck::node_check
