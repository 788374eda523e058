// The driver's own recovery action per card (gpu/health/recovery_action.h): anything but "none" is
// a finding that says what the driver asks for, since the driver knows the card's state better than
// any log we read (a card `nvidia-smi` shows as "1, Reset" read Healthy in DCGM#263 without it).
// A driver without the field ({"na"}) says nothing. XID 154 in the kernel log, the announcement of
// a change, is judged with the other XIDs (xid_findings.cpp).
#include "gpu/health/recovery_action.h"
#include "node_check/findings/findings.h"

namespace labcheck::node_check {

void AddRecoveryActionFindings(int gpu, const nlohmann::json& facts, std::vector<Finding>& out) {
  const nlohmann::json& action = facts.value("recovery_action", nlohmann::json(nullptr));
  if (!action.is_string() || action.get<std::string>() == "none") return;
  // A node reboot is its own kind (what clears it is a reboot); the others ask for a GPU reset
  // first (drain P2P as XID 154 is judged: xid_catalog.cpp).
  const std::string key = action.get<std::string>() == "node_reboot" ? "recovery_reboot" : "recovery_reset";
  out.push_back({gpu, key, gpu::health::RecoveryActionText(action.get<std::string>())});
}

}  // namespace labcheck::node_check
