#include "gpu/health/kernel_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck::gpu::health {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The kernel's clock of a line: a /dev/kmsg record ("6,1234,5678901,-;message": microseconds),
// or dmesg's and `journalctl -k -o short-monotonic`'s "[ 5678.901234]". `journalctl -k`'s default
// wall-clock stamp is not the kernel's clock: no time then, the order still holds.
std::optional<double> KernelTime(const std::string& line) {
  static const std::regex kKmsg(R"(^\d+,\d+,(\d+),[^;]*;)");
  static const std::regex kBracket(R"(\[\s*(\d+\.\d+)\])");
  std::smatch m;
  if (std::regex_search(line, m, kKmsg)) return std::stod(m[1].str()) / 1e6;
  if (std::regex_search(line, m, kBracket)) return std::stod(m[1].str());
  return std::nullopt;
}

bool IsBoot(const std::string& line) { return line.find("Linux version ") != std::string::npos; }
bool IsDriverLoad(const std::string& line) { return line.find("NVRM: loading NVIDIA UNIX") != std::string::npos; }

std::optional<std::string> ResetNotePci(const std::string& line) {
  static const std::regex kNote(R"(lab_check: GPU ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})[^ ]* reset)");
  std::smatch m;
  if (!std::regex_search(line, m, kNote)) return std::nullopt;
  return Lower(m[1].str());
}

void Clear(std::vector<KernelXid>& xids, const std::string& by, std::optional<double> at, const std::string& pci = {}) {
  for (KernelXid& x : xids) {
    if (!pci.empty() && x.pci != pci) continue;
    x.cleared_by = by;
    x.cleared_at_s = at;
  }
}

Result<std::vector<std::string>> ReadKmsgRecords(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == EPERM || e == EACCES)
      return Status::Error(path + " is readable only by root here (kernel.dmesg_restrict=1): sudo dmesg | grep 'NVRM: Xid'");
    return Status::Error(path + ": " + std::strerror(e) + " (no kernel log in this container?)");
  }
  std::vector<std::string> records;
  char record[8192];
  for (;;) {
    ssize_t n = read(fd, record, sizeof record - 1);
    if (n < 0 && errno == EPIPE) continue;  // a record was overwritten while reading: go on
    if (n <= 0) break;                      // EAGAIN: the end of the buffer
    records.emplace_back(record, static_cast<size_t>(n));
  }
  close(fd);
  return records;
}

Result<std::vector<std::string>> ReadTextLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error(path + ": " + std::strerror(errno));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

std::optional<KernelXid> ParseXidLine(const std::string& message) {
  // "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
  static const std::regex kXid(R"(NVRM: Xid \(PCI:([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})[^)]*\): (\d+))");
  std::smatch m;
  if (!std::regex_search(message, m, kXid)) return std::nullopt;
  KernelXid x;
  x.pci = Lower(m[1].str());
  x.xid = std::stoi(m[2].str());
  // The line only: a /dev/kmsg record continues with " SUBSYSTEM=pci" and such after a newline.
  x.line = message.substr(message.find("NVRM: Xid"));
  x.line = x.line.substr(0, x.line.find('\n'));
  while (!x.line.empty() && x.line.back() == '\r') x.line.pop_back();
  return x;
}

std::vector<KernelXid> KernelXidsOf(const std::vector<std::string>& lines) {
  std::vector<KernelXid> xids;
  for (const std::string& line : lines) {
    const std::optional<double> time = KernelTime(line);
    if (IsBoot(line)) xids.clear();
    else if (IsDriverLoad(line)) Clear(xids, "driver_load", time);
    else if (std::optional<std::string> pci = ResetNotePci(line)) Clear(xids, "gpu_reset", time, *pci);
    else if (std::optional<KernelXid> x = ParseXidLine(line)) {
      x->time_s = time;
      xids.push_back(*x);
    }
  }
  return xids;
}

Result<std::vector<std::string>> ReadKernelLogLines(const std::string& path) {
  struct stat st {};
  const bool device = stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
  return device || path == "/dev/kmsg" ? ReadKmsgRecords(path) : ReadTextLines(path);
}

Result<std::vector<KernelXid>> ReadKernelXids(const std::string& path) {
  Result<std::vector<std::string>> lines = ReadKernelLogLines(path);
  if (!lines.ok()) return lines.status();
  return KernelXidsOf(*lines);
}

bool IsBootLine(const std::string& line) { return IsBoot(line); }

bool SameGpu(const std::string& kernel_pci, const std::string& bus_id) {
  return !kernel_pci.empty() && Lower(bus_id).rfind(kernel_pci, 0) == 0;
}

std::string ResetNote(const std::string& pci) { return "lab_check: GPU " + pci + " reset"; }

}  // namespace labcheck::gpu::health
