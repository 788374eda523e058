// What Slurm says of its nodes, read from `scontrol -o show nodes` (one line per node): the name,
// the state with its flags, the partitions and the reason. --drain reads it to tell its own drain
// (a reason beginning "lab_check:") from anyone else's, and to count its drains per partition for
// the drain cap. A pure parser, tested on text captured from Slurm 22.05.8 (Debian 12's slurm-wlm).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace labcheck::node_check {

// The prefix DrainReason gives every reason lab_check sets; what NHC calls its note's "leader"
// (helpers/node-mark-online: a node is brought back only when its note begins with "NHC:").
inline constexpr const char* kReasonPrefix = "lab_check:";

struct SlurmNode {
  std::string name;
  std::string state;                    // as printed: "IDLE+DRAIN", "MIXED+DRAIN", "DOWN*+DRAIN"
  std::vector<std::string> partitions;  // "Partitions=debug,gpu"
  std::string reason;                   // without Slurm's " [user@time]"; "" when none

  // The DRAIN flag: drained (idle) or draining (jobs still running), as sinfo's "drain"/"drng".
  bool Draining() const;
  // Out of service for the scheduler: drained or draining, failing (FAIL), or DOWN.
  bool OutOfService() const;
  // The reason is lab_check's own.
  bool DrainedByLabCheck() const;
};

// Every line with a NodeName=; lines without one (an error, an empty list) are skipped.
std::vector<SlurmNode> ParseScontrolNodes(const std::string& text);

std::optional<SlurmNode> FindNode(const std::vector<SlurmNode>& nodes, const std::string& name);

}  // namespace labcheck::node_check
