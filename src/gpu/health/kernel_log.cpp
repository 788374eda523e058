#include "gpu/health/kernel_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "gpu/health/fallen_off_bus.h"

namespace labcheck::gpu::health {

namespace {

std::optional<std::string> ResetNotePci(const std::string& line) {
  static const std::regex kNote(R"(lab_check: GPU ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})[^ ]* reset)");
  std::smatch m;
  if (line.find("lab_check: GPU") == std::string::npos || !std::regex_search(line, m, kNote)) return std::nullopt;
  return KernelPci(m[1].str());
}

void Clear(std::vector<KernelXid>& xids, const std::string& by, std::optional<double> at, const std::string& pci = {}) {
  for (KernelXid& x : xids) {
    if (!pci.empty() && x.pci != pci) continue;
    x.cleared_by = by;
    x.cleared_at_s = at;
  }
}

// The card's identity as the driver logs it before a card's first XID (open-gpu-kernel-modules
// src/nvidia/src/kernel/gpu/rc/kernel_rc.c, _krcLogUuidOnce: "NVRM: GPU at PCI:%04x:%02x:%02x: %s",
// then "NVRM: GPU Board Serial Number: %s") and after "GPU has fallen off the bus." (osinit.c:
// "GPU serial number is %s.").
class KernelCardIds {
 public:
  bool Read(const std::string& line) {
    if (line.find("NVRM: GPU") == std::string::npos) return false;
    static const std::regex kUuid(R"(NVRM: GPU at PCI:([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}): (GPU-[0-9A-Fa-f-]+))");
    static const std::regex kBoardSerial(R"(NVRM: GPU Board Serial Number: (\S+))");
    static const std::regex kSerialIs(R"(NVRM: GPU ([0-9A-Fa-f:]+\.[0-7]): GPU serial number is (\S+?)\.?$)");
    std::smatch m;
    if (std::regex_search(line, m, kUuid)) {
      last_ = KernelPci(m[1].str());
      ids_[last_].second = m[2].str();
    } else if (std::regex_search(line, m, kBoardSerial) && !last_.empty()) {
      ids_[last_].first = m[1].str();
    } else if (std::regex_search(line, m, kSerialIs)) {
      ids_[KernelPci(m[1].str())].first = m[2].str();
    } else {
      return false;
    }
    return true;
  }
  void Fill(std::vector<KernelXid>& xids) const {
    for (KernelXid& x : xids) {
      auto it = ids_.find(x.pci);
      if (it == ids_.end()) continue;
      if (x.serial.empty()) x.serial = it->second.first;
      if (x.uuid.empty()) x.uuid = it->second.second;
    }
  }

 private:
  std::map<std::string, std::pair<std::string, std::string>> ids_;  // pci → {serial, uuid}
  std::string last_;                                                // the card "GPU at PCI:" named last
};

// XID 79 is one event per card however many lines say it (an XID 79 line, then the driver's own
// "GPU has fallen off the bus." a few microseconds later): later lines are the first one's evidence.
void AddOrMerge(std::vector<KernelXid>& xids, KernelXid x) {
  if (x.xid == 79) {
    for (KernelXid& earlier : xids) {
      if (earlier.xid != 79 || earlier.pci != x.pci) continue;
      earlier.also.push_back({x.form, x.line});
      return;
    }
  }
  xids.push_back(std::move(x));
}

KernelXid FromFallenOffBus(const FallenOffBus& f) {
  KernelXid x;
  x.pci = f.pci;
  x.xid = 79;
  x.line = f.line;
  x.form = f.form;
  x.time_s = f.time_s;
  return x;
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
  // and older drivers' "NVRM: Xid (0000:03:00): 14, Channel 00000001"; a MIG instance's
  // "(PCI:0000:01:00 GPU-I:05)" and a function's ".0" are read past.
  static const std::regex kXid(R"(NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})[^)]*\): (\d+))");
  std::smatch m;
  if (message.find("NVRM: Xid") == std::string::npos || !std::regex_search(message, m, kXid)) return std::nullopt;
  KernelXid x;
  x.pci = KernelPci(m[1].str());
  x.xid = std::stoi(m[2].str());
  // The line only: a /dev/kmsg record continues with " SUBSYSTEM=pci" and such after a newline.
  x.line = message.substr(message.find("NVRM: Xid"));
  x.line = x.line.substr(0, x.line.find('\n'));
  while (!x.line.empty() && x.line.back() == '\r') x.line.pop_back();
  return x;
}

std::vector<KernelXid> KernelXidsOf(const std::vector<std::string>& records) {
  std::vector<KernelXid> xids;
  std::string version;  // of the driver loaded last in this boot
  KernelCardIds ids;
  FallenOffBusMatcher fallen;
  for (const LogLine& line : KernelLogLinesOf(records)) {
    const std::optional<FallenOffBus> off = fallen.Feed(line);
    if (IsBootLine(line.text)) {
      xids.clear(), version.clear(), ids = KernelCardIds(), fallen = FallenOffBusMatcher();
    } else if (std::optional<std::string> loaded = DriverLoadVersion(line.text)) {
      Clear(xids, "driver_load", line.time_s);
      version = *loaded;
    } else if (std::optional<std::string> pci = ResetNotePci(line.text)) {
      Clear(xids, "gpu_reset", line.time_s, *pci);
    } else if (std::optional<KernelXid> x = ParseXidLine(line.text)) {
      x->time_s = line.time_s;
      x->driver_version = version;
      AddOrMerge(xids, std::move(*x));
    } else if (off) {
      KernelXid x = FromFallenOffBus(*off);
      x.driver_version = version;
      AddOrMerge(xids, std::move(x));
    } else {
      ids.Read(line.text);
    }
  }
  ids.Fill(xids);
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

bool SameGpu(const std::string& kernel_pci, const std::string& bus_id) {
  std::string lower = bus_id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !kernel_pci.empty() && lower.rfind(kernel_pci, 0) == 0;
}

std::string ResetNote(const std::string& pci) { return "lab_check: GPU " + pci + " reset"; }

}  // namespace labcheck::gpu::health
