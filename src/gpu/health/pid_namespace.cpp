#include "gpu/health/pid_namespace.h"

#include <unistd.h>

#include <array>

namespace labcheck::gpu::health {

PidNamespace ReadPidNamespace(const std::string& proc_root, const std::optional<std::string>& host_link) {
  PidNamespace ns;
  std::array<char, 64> target{};
  const std::string path = proc_root + "/self/ns/pid";
  const ssize_t n = readlink(path.c_str(), target.data(), target.size() - 1);
  if (n <= 0) return ns;
  ns.link.assign(target.data(), static_cast<size_t>(n));
  ns.host = ns.link == host_link.value_or(kHostPidNamespaceLink);
  return ns;
}

nlohmann::json PidNamespaceJson(const PidNamespace& ns) {
  return {{"link", ns.link.empty() ? nlohmann::json(nullptr) : nlohmann::json(ns.link)}, {"host", ns.host}};
}

}  // namespace labcheck::gpu::health
