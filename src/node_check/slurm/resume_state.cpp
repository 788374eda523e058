#include "node_check/slurm/resume_state.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "platform/files.h"

namespace labcheck::node_check {

using nlohmann::json;

std::string ResumeStatePath(const std::string& dir, const std::string& node) { return dir + "/" + node + ".json"; }

Result<std::optional<ResumeState>> ReadResumeState(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<ResumeState>();
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  const json j = json::parse(text.value(), nullptr, false);
  if (!j.is_object()) return Status::Error(path + ": not the JSON object lab_check writes; remove it to start afresh");
  ResumeState s;
  s.healthy_runs = j.value("healthy_runs", 0);
  if (j.contains("reboot_boot_id") && j["reboot_boot_id"].is_string()) s.reboot_boot_id = j["reboot_boot_id"].get<std::string>();
  s.updated_at = j.value("updated_at", std::string());
  return std::optional<ResumeState>(s);
}

Status WriteResumeState(const std::string& path, const ResumeState& state) {
  json j = {{"kind", "lab_check.node_check.resume_state"}, {"healthy_runs", state.healthy_runs}, {"updated_at", UtcTimestamp()}};
  j["reboot_boot_id"] = state.reboot_boot_id ? json(*state.reboot_boot_id) : json(nullptr);
  return WriteFileAtomically(path, j.dump(2) + "\n");
}

Status RemoveResumeState(const std::string& path) {
  if (std::remove(path.c_str()) == 0 || errno == ENOENT) return Status::Ok();
  return Status::Error(path + ": " + std::strerror(errno));
}

std::string ReadBootId(const EnvLookup& env) {
  const std::string path = env("LABCHECK_BOOT_ID_FILE").value_or("/proc/sys/kernel/random/boot_id");
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return "";
  std::string id = text.value();
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

}  // namespace labcheck::node_check
