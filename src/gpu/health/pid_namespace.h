// Whose process ids NVML's process lists hold, and whether this process can name them.
//
// The NVIDIA driver does not know PID namespaces: "anytime you query it for the set of processes
// that are using GPUs, you will always get the host pids, not the container pids" (NVIDIA's
// Kevin Klues, NVIDIA/nvidia-docker#1483). In a container with its own PID namespace, /proc/PID
// for such a pid is another process or none, so a name read there is wrong, and the host pid
// cannot be mapped from inside (proc(5), NSpid: the entries start at the namespace that mounted
// /proc). The host's namespace is told by its fixed inode, PROC_PID_INIT_INO = 0xEFFFFFFC
// (include/linux/proc_ns.h), which /proc/self/ns/pid names as "pid:[4026531836]".
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace labcheck::gpu::health {

struct PidNamespace {
  std::string link;  // /proc/self/ns/pid's target, "pid:[4026531836]"; empty when unreadable
  bool host = true;  // false: NVML's pids are the host's and this namespace cannot name them
};

inline constexpr const char* kHostPidNamespaceLink = "pid:[4026531836]";

// `host_link` stands for the host's link where a test needs another: the simulated NVML gives
// pids of the namespace the test runs in (LABCHECK_TEST_HOST_PID_NS, read by the health job). A
// kernel without namespace files (before 3.8) reads as the host, as it has no others.
PidNamespace ReadPidNamespace(const std::string& proc_root = "/proc",
                              const std::optional<std::string>& host_link = std::nullopt);

// {"link": ..., "host": ...} as the health facts carry it.
nlohmann::json PidNamespaceJson(const PidNamespace& ns);

}  // namespace labcheck::gpu::health
