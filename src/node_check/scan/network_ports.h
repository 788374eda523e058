// The InfiniBand and RoCE ports a multi-node job's NCCL traffic crosses, read from sysfs before and
// after the check's own load (through the cluster mode's reader, cluster/nic_discovery.h): /sys/class/infiniband/<hca>/ports/<n>/{state ("4: ACTIVE"),
// phys_state ("5: LinkUp"), rate ("200 Gb/sec (4X HDR)"), link_layer, counters/link_downed,
// counters/symbol_error}, and for a RoCE port its netdev (gid_attrs/ndevs/0) with
// /sys/class/net/<if>/{operstate, speed} (kernel Documentation/ABI/stable/sysfs-class-infiniband,
// Documentation/ABI/testing/sysfs-class-net). `sys_root` is "/sys" or LABCHECK_SYS_ROOT's fake tree.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace labcheck::node_check {

// [{device, port, state, phys_state, rate_gbit, link_layer, link_downed, symbol_error,
//   netdev?, netdev_operstate?, netdev_speed_mbit?}, …]; an empty array on a node without ports.
nlohmann::json ReadNetworkPorts(const std::string& sys_root);

// `after` with each port's counter growth since `before` (link_downed_growth, symbol_error_growth),
// matched by device and port; a port absent before has no growth.
nlohmann::json WithCounterGrowth(const nlohmann::json& before, nlohmann::json after);

}  // namespace labcheck::node_check
