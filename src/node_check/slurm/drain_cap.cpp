#include "node_check/slurm/drain_cap.h"

#include <algorithm>
#include <cctype>

namespace labcheck::node_check {

std::string DrainCap::Text() const { return std::to_string(value) + (percent ? "%" : ""); }

int DrainCap::NodesAllowed(int nodes) const {
  if (!percent) return value;
  return std::max(1, nodes * value / 100);
}

std::optional<DrainCap> ParseDrainCap(const std::string& text) {
  DrainCap cap;
  cap.percent = !text.empty() && text.back() == '%';
  const std::string digits = cap.percent ? text.substr(0, text.size() - 1) : text;
  if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  cap.value = std::stoi(digits);
  // 0 would forbid every drain (that is leaving out --drain); above 100 % means nothing.
  if (cap.value == 0 || (cap.percent && cap.value > 100)) return std::nullopt;
  return cap;
}

std::optional<CapCount> CountDrainedByLabCheck(const std::vector<SlurmNode>& nodes, const std::string& node, const DrainCap& cap) {
  const std::optional<SlurmNode> self = FindNode(nodes, node);
  if (!self) return std::nullopt;
  std::optional<CapCount> fullest;
  for (const std::string& partition : self->partitions) {
    CapCount c;
    c.partition = partition;
    for (const SlurmNode& n : nodes) {
      if (std::find(n.partitions.begin(), n.partitions.end(), partition) == n.partitions.end()) continue;
      ++c.nodes;
      if (n.name != node && n.DrainedByLabCheck()) ++c.drained;
    }
    c.allowed = cap.NodesAllowed(c.nodes);
    if (c.reached()) return c;
    if (!fullest || c.drained * fullest->allowed > fullest->drained * c.allowed) fullest = c;
  }
  return fullest;
}

}  // namespace labcheck::node_check
