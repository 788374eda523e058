// Two "nodes" on this machine for the end-to-end tests: several copies of the real binary started
// at once (by mpirun, by torchrun's launcher, or by hand with a launcher's variables), each a
// rank, over the simulated NVIDIA libraries in build/sim-nvidia (tests/sim/README.md).
#pragma once
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/child_process.h"

namespace labcheck::cluster::testing {

inline std::string BuildDir() { return std::filesystem::path(LAB_CHECK_BINARY).parent_path().string(); }
inline std::string SimDir() { return BuildDir() + "/sim-nvidia"; }
inline bool SimNcclPresent() { return std::filesystem::exists(SimDir() + "/libnccl.so.2") && std::filesystem::exists(SimDir() + "/libcuda.so.1"); }

// A free TCP port with a free neighbour (the gather uses base + 1).
inline int FreePortPair() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    int port = ntohs(addr.sin_port);
    close(fd);
    int next = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in n = addr;
    n.sin_port = htons(port + 1);
    bool ok = port < 65000 && bind(next, reinterpret_cast<sockaddr*>(&n), sizeof n) == 0;
    close(next);
    if (ok) return port;
  }
  return 29600;
}

// Runs every spec at once and waits for all.
inline std::vector<ChildOutcome> RunTogether(const std::vector<ChildSpec>& specs) {
  std::vector<ChildOutcome> outcomes(specs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < specs.size(); ++i)
    threads.emplace_back([&, i] { outcomes[i] = RunChild(specs[i], CancelToken::Never()); });
  for (std::thread& t : threads) t.join();
  return outcomes;
}

// The report JSON a rank printed with --json (from its first line on; anything a launcher printed
// before it is skipped).
inline nlohmann::json ReportJson(const std::string& out) {
  size_t at = out.find("{\n  \"checks\"");
  if (at == std::string::npos) at = out.find('{');
  return at == std::string::npos ? nlohmann::json() : nlohmann::json::parse(out.substr(at), nullptr, false);
}

inline const nlohmann::json* ClusterCheck(const nlohmann::json& report) {
  if (!report.is_object() || !report.contains("checks")) return nullptr;
  for (const nlohmann::json& c : report["checks"])
    if (c.value("id", "") == "cluster.allreduce") return &c;
  return nullptr;
}

}  // namespace labcheck::cluster::testing
