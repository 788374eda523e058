// The operating system and memory as the kernel reports them: /etc/os-release, uname, glibc and
// /proc/meminfo. Parsers take file contents; Read* functions read this machine.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace labcheck::env {

// PRETTY_NAME from os-release ("Ubuntu 24.04.1 LTS"), else NAME VERSION, else empty.
std::string ParseOsPrettyName(std::string_view os_release);
// One field of os-release, unquoted ("ID" → "ubuntu", "ID_LIKE" → "debian"); empty when absent.
std::string ParseOsField(std::string_view os_release, const std::string& key);

struct MemInfo {
  uint64_t total_bytes = 0;
  // MemAvailable: the kernel's estimate of what can be allocated without swapping. Kernels before
  // 3.14 lack it; then it stays empty rather than guessed from MemFree.
  std::optional<uint64_t> available_bytes;
};

// Parses /proc/meminfo (values in kB, which the kernel means as KiB).
Result<MemInfo> ParseMemInfo(std::string_view meminfo);

struct OsInfo {
  std::string name;     // "Debian GNU/Linux 12 (bookworm)"
  std::string id;       // os-release ID: "debian", "ubuntu", "rocky"
  std::string id_like;  // os-release ID_LIKE: "debian" on Ubuntu, "rhel centos fedora" on Rocky
  std::string kernel;   // uname release, e.g. "6.8.0-45-generic"
  std::string machine;  // "x86_64"
  std::string glibc;    // runtime glibc version, e.g. "2.36"
};

// Reads os-release (/etc, then /usr/lib), uname and the running glibc. Never the host name.
OsInfo ReadOsInfo();
Result<MemInfo> ReadMemInfo();

}  // namespace labcheck::env
