#include "cluster/rendezvous.h"

#include "cluster/host_list.h"

namespace labcheck::cluster {

std::string Rendezvous::CommId(int port_offset) const {
  const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(base_port + port_offset);
}

namespace {

// "host:port" or "[v6]:port" → (host, port).
Result<std::pair<std::string, int>> SplitHostPort(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size()) return Status::Error("NCCL_COMM_ID=" + text + " is not <host>:<port>");
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9') return Status::Error("NCCL_COMM_ID=" + text + " has no numeric port");
    port = port * 10 + (c - '0');
    if (port > 65535) return Status::Error("NCCL_COMM_ID=" + text + ": port above 65535");
  }
  return std::make_pair(host, port);
}

bool AllOnThisHost(const LaunchEnv& launch) {
  return launch.world_size == 1 || (launch.local_size && *launch.local_size == launch.world_size);
}

}  // namespace

Result<Rendezvous> ChooseRendezvous(const LaunchEnv& launch, const EnvLookup& env, std::optional<int> port) {
  Rendezvous r;
  if (std::optional<std::string> given = env("NCCL_COMM_ID"); given && !given->empty()) {
    Result<std::pair<std::string, int>> split = SplitHostPort(*given);
    if (!split.ok()) return split.status();
    r.host = split->first;
    r.base_port = split->second;
    r.source = "NCCL_COMM_ID";
  } else if (!launch.master_addr.empty()) {
    r.host = launch.master_addr;
    r.base_port = launch.master_port ? *launch.master_port + 1 : kDefaultBasePort;
    r.source = "MASTER_ADDR";
  } else if (!launch.node_list.empty()) {
    Result<std::string> first = FirstHost(launch.node_list);
    if (!first.ok()) return Status::Error("Slurm's node list: " + first.status().message());
    r.host = *first;
    // Two jobs sharing a node must not share a port: spread them by job id.
    r.base_port = kDefaultBasePort + 2 * static_cast<int>(launch.job_id.value_or(0) % 1000);
    r.source = "SLURM_STEP_NODELIST";
  } else if (AllOnThisHost(launch)) {
    r.host = "127.0.0.1";
    r.base_port = kDefaultBasePort;
    r.source = "one host";
  } else {
    return Status::Error(std::string(LauncherName(launch.launcher)) +
                         " does not say which host runs rank 0: pass it, e.g. mpirun -x MASTER_ADDR=<first host> "
                         "(or -x NCCL_COMM_ID=<first host>:<port>)");
  }
  if (port) r.base_port = *port;
  if (r.base_port < 1 || r.base_port + kGatherPortOffset > 65535)
    return Status::Error("port " + std::to_string(r.base_port) + " is outside 1…65534");
  return r;
}

}  // namespace labcheck::cluster
