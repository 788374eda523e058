// The drain cap (--drain-cap): a bad rule, a driver upgrade or a wrong band for a new card fails
// every node of a partition within one HealthCheckInterval, and --drain would empty it. Before
// draining one more node, node-check counts the nodes of each of this node's partitions that Slurm
// shows out of service with a lab_check reason; when this drain would pass the cap it is held
// back (NVIDIA's NVSentinel does the same with its fault quarantine's circuit breaker: no more than
// a percentage of the cluster's nodes cordoned; LBNL NHC has no such limit).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "node_check/slurm/slurm_nodes.h"

namespace labcheck::node_check {

struct DrainCap {
  int value = 10;          // nodes, or percent of the partition's nodes
  bool percent = true;
  std::string Text() const;  // "20%", "3"
  // How many nodes of a partition of `nodes` nodes may be drained by lab_check: N, or P % rounded
  // down and at least 1 (a cap of 0 would forbid every drain: that is no --drain at all).
  int NodesAllowed(int nodes) const;
};

// The default: 10 % of a partition and at least one node (the example default; a fleet
// keeps 9 in 10 of its nodes whatever a rule says, and a partition of fewer than 10 nodes can still
// lose its one sick node).
inline constexpr DrainCap kDefaultDrainCap{10, true};

// "3" (nodes) or "20%" (of the partition), whole numbers above 0; nullopt for 0, 0%, 150%, abc, 2.5.
std::optional<DrainCap> ParseDrainCap(const std::string& text);

struct CapCount {
  std::string partition;
  int drained = 0;  // nodes drained by lab_check, this one not counted
  int nodes = 0;    // the partition's nodes
  int allowed = 0;  // DrainCap::NodesAllowed(nodes)
  bool reached() const { return drained + 1 > allowed; }
};

// Per partition of `node`: the first partition where draining it would pass the cap, else the
// fullest one (for the report); nullopt when Slurm does not list the node or it has no partition.
std::optional<CapCount> CountDrainedByLabCheck(const std::vector<SlurmNode>& nodes, const std::string& node, const DrainCap& cap);

}  // namespace labcheck::node_check
