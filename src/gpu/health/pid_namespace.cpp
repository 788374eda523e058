#include "gpu/health/pid_namespace.h"

#include <filesystem>
#include <system_error>

namespace labcheck::gpu::health {

PidNamespace ReadPidNamespace(const std::string& proc_root, const std::optional<std::string>& host_link) {
  PidNamespace ns;
  std::error_code error;
  const std::filesystem::path target = std::filesystem::read_symlink(proc_root + "/self/ns/pid", error);
  if (error || target.empty()) return ns;
  ns.link = target.string();
  ns.host = ns.link == host_link.value_or(kHostPidNamespaceLink);
  return ns;
}

nlohmann::json PidNamespaceJson(const PidNamespace& ns) {
  return {{"link", ns.link.empty() ? nlohmann::json(nullptr) : nlohmann::json(ns.link)}, {"host", ns.host}};
}

}  // namespace labcheck::gpu::health
