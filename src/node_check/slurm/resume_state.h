// What --drain remembers between runs of one node, in a small JSON file per node name under
// --state-dir (default /var/lib/lab_check): how many healthy runs in a row it has seen since
// its last unhealthy one (--resume-after), and, for a drain whose findings clear only with a
// reboot, the boot id of the boot it drained in (the node is resumed only from another boot).
// Slurm keeps the rest: whether the node is drained, and by whom (the reason).
#pragma once
#include <optional>
#include <string>

#include "core/status.h"
#include "node_check/verdict/env_lookup.h"

namespace labcheck::node_check {

inline constexpr const char* kDefaultStateDir = "/var/lib/lab_check";

struct ResumeState {
  int healthy_runs = 0;                       // consecutive healthy runs since the last unhealthy one
  std::optional<std::string> reboot_boot_id;  // set: drained over a reboot-class finding in this boot
  std::string updated_at;                     // UTC, for a person reading the file
};

// "<dir>/<node>.json".
std::string ResumeStatePath(const std::string& dir, const std::string& node);
// nullopt when there is no file (never drained, or the record was lost); an error when a file is
// there and cannot be read or parsed.
Result<std::optional<ResumeState>> ReadResumeState(const std::string& path);
// Atomically (platform/files.h), creating the folder.
Status WriteResumeState(const std::string& path, const ResumeState& state);
// No file afterwards (a missing one is fine).
Status RemoveResumeState(const std::string& path);

// This boot's id: the kernel's random UUID per boot (/proc/sys/kernel/random/boot_id, proc(5)),
// or the file LABCHECK_BOOT_ID_FILE names (tests stand a file in for a reboot). "" when unreadable.
std::string ReadBootId(const EnvLookup& env);

}  // namespace labcheck::node_check
