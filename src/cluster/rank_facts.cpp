#include "cluster/rank_facts.h"

#include <unistd.h>

#include <cstdint>

#include <fmt/format.h>

namespace labcheck::cluster {

std::string NodeKey(const std::string& host_name, int rank, const EnvLookup& env) {
  if (env("LABCHECK_TEST_NODE_PER_RANK").value_or("") == "1") return "rank-" + std::to_string(rank);
  uint64_t hash = 1469598103934665603ull;  // FNV-1a, 64 bit
  for (unsigned char c : host_name) hash = (hash ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", hash);
}

RankFacts ReadRankFacts(const LaunchEnv& launch, const EnvLookup& env, const std::string& sys_root) {
  RankFacts facts;
  facts.rank = launch.rank;
  facts.world_size = launch.world_size;
  facts.local_rank = launch.local_rank;
  facts.launcher = LauncherName(launch.launcher);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  facts.node_key = NodeKey(host, launch.rank, env);
  facts.nics = ReadNics(sys_root);
  facts.peermem = PeermemLoaded(sys_root);
  for (const char* name : kNcclNetVariables)
    if (std::optional<std::string> value = env(name)) facts.nccl_env[name] = *value;
  return facts;
}

nlohmann::json RankFacts::ToJson() const {
  return {{"rank", rank}, {"world_size", world_size}, {"local_rank", local_rank}, {"launcher", launcher},
          {"node_key", node_key}, {"nics", nics.ToJson()}, {"peermem", peermem}, {"nccl_env", nccl_env}};
}

}  // namespace labcheck::cluster
