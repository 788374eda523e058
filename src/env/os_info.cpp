#include "env/os_info.h"

#include <gnu/libc-version.h>
#include <sys/utsname.h>

#include <map>
#include <sstream>

#include "env/sysfs.h"

namespace labcheck::env {
namespace {

// os-release values may be quoted with ' or " (a shell-compatible assignment).
std::string Unquote(std::string value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  return value;
}

}  // namespace

namespace {

std::map<std::string, std::string> OsReleaseFields(std::string_view os_release) {
  std::map<std::string, std::string> fields;
  std::istringstream lines{std::string(os_release)};
  for (std::string line; std::getline(lines, line);) {
    size_t equals = line.find('=');
    if (equals == std::string::npos || line.starts_with('#')) continue;
    fields[Trim(line.substr(0, equals))] = Unquote(Trim(line.substr(equals + 1)));
  }
  return fields;
}

}  // namespace

std::string ParseOsField(std::string_view os_release, const std::string& key) {
  const std::map<std::string, std::string> fields = OsReleaseFields(os_release);
  auto it = fields.find(key);
  return it == fields.end() ? std::string() : it->second;
}

std::string ParseOsPrettyName(std::string_view os_release) {
  std::map<std::string, std::string> fields = OsReleaseFields(os_release);
  if (!fields["PRETTY_NAME"].empty()) return fields["PRETTY_NAME"];
  std::string name = fields["NAME"];
  if (!fields["VERSION"].empty()) name += (name.empty() ? "" : " ") + fields["VERSION"];
  return name;
}

Result<MemInfo> ParseMemInfo(std::string_view meminfo) {
  MemInfo info;
  bool have_total = false;
  std::istringstream lines{std::string(meminfo)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string key;
    uint64_t kib = 0;
    if (!(words >> key >> kib)) continue;
    if (key == "MemTotal:") {
      info.total_bytes = kib * 1024;
      have_total = true;
    } else if (key == "MemAvailable:") {
      info.available_bytes = kib * 1024;
    }
  }
  if (!have_total) return Status::Error("no MemTotal in /proc/meminfo");
  return info;
}

OsInfo ReadOsInfo() {
  OsInfo os;
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    if (auto text = ReadFile(path); text.ok()) {
      os.name = ParseOsPrettyName(*text);
      os.id = ParseOsField(*text, "ID");
      os.id_like = ParseOsField(*text, "ID_LIKE");
      if (!os.name.empty()) break;
    }
  }
  if (os.name.empty()) os.name = "Linux";
  utsname names{};
  if (uname(&names) == 0) {  // nodename (the host name) is deliberately not read
    os.kernel = names.release;
    os.machine = names.machine;
  }
  os.glibc = gnu_get_libc_version();
  return os;
}

Result<MemInfo> ReadMemInfo() {
  auto text = ReadFile("/proc/meminfo");
  if (!text.ok()) return text.status();
  return ParseMemInfo(*text);
}

}  // namespace labcheck::env
