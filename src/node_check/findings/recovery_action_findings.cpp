// The driver's own recovery action per card (gpu/health/recovery_action.h): anything but "none" is
// a finding that says what the driver asks for, since the driver knows the card's state better than
// any log we read (a card `nvidia-smi` shows as "1, Reset" read Healthy in DCGM#263 without it).
// A driver without the field ({"na"}) says nothing. XID 154 in the kernel log, the announcement of
// a change, is judged with the other XIDs (xid_findings.cpp), only where this field was not read.
#include "gpu/health/recovery_action.h"
#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

// The finding's key per action: a node reboot is its own kind (what clears it is a reboot); drain
// P2P and the IMEX domain ask for what NVIDIA's documents say, not a reset; the others ask for a GPU
// reset first, an action this table does not know included (strict: the card is not in service
// until someone looks).
std::string RecoveryFindingKey(const std::string& action) {
  if (action == "node_reboot") return "recovery_reboot";
  if (action == "drain_p2p") return "recovery_drain_p2p";
  if (action == "recover_imex_domain") return "recovery_imex_domain";
  return "recovery_reset";
}

}  // namespace

void AddRecoveryActionFindings(int gpu, const nlohmann::json& facts, std::vector<Finding>& out) {
  const nlohmann::json& action = facts.value("recovery_action", nlohmann::json(nullptr));
  if (!action.is_string() || action.get<std::string>() == "none") return;
  out.push_back({gpu, RecoveryFindingKey(action.get<std::string>()), gpu::health::RecoveryActionText(action.get<std::string>())});
}

}  // namespace labcheck::node_check
