// What each rank's parent process knows about its node without touching NVIDIA's libraries: a
// node key (to group ranks into nodes), the NICs, whether GPUDirect RDMA's kernel module is
// loaded, and the NCCL variables that steer the network. The key is a hash of the host name and
// never appears in a report (reports hold no host names); nodes are shown as "node 0, node 1…" in
// the order of their first rank.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/launcher_env.h"
#include "cluster/nic_discovery.h"

namespace labcheck::cluster {

// The NCCL variables we read back into the report (and name in hints).
inline constexpr const char* kNcclNetVariables[] = {"NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_IB_DISABLE",
                                                    "NCCL_NET_GDR_LEVEL", "NCCL_NET", "NCCL_P2P_DISABLE"};

struct RankFacts {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string launcher;
  std::string node_key;
  NicInventory nics;
  bool peermem = false;
  nlohmann::json nccl_env = nlohmann::json::object();  // only the variables that are set
  nlohmann::json ToJson() const;
};

// FNV-1a of the host name, 16 hex digits. LABCHECK_TEST_NODE_PER_RANK=1 (tests only) makes each
// rank its own "node", so two processes on one machine stand in for two nodes.
std::string NodeKey(const std::string& host_name, int rank, const EnvLookup& env);

RankFacts ReadRankFacts(const LaunchEnv& launch, const EnvLookup& env, const std::string& sys_root);

}  // namespace labcheck::cluster
