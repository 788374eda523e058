#include "gpu/health/sxid.h"

#include <algorithm>
#include <cctype>

#include "core/regex_instances.h"
#include "gpu/health/kernel_log.h"

namespace labcheck::gpu::health {

std::optional<KernelSxid> ParseSxidLine(const std::string& line) {
  static const std::regex kSxid(R"((nvidia-nvswitch\d+): SXid \(PCI:([0-9A-Fa-f:.]+)\): (\d+), ([A-Za-z-]+),? ?([^\n\r]*))");
  std::smatch m;
  if (line.find("SXid") == std::string::npos || !std::regex_search(line, m, kSxid)) return std::nullopt;
  KernelSxid s;
  s.nvswitch = m[1].str();
  s.pci = m[2].str();
  std::transform(s.pci.begin(), s.pci.end(), s.pci.begin(), [](unsigned char c) { return std::tolower(c); });
  s.sxid = std::stoi(m[3].str());
  s.fatal = m[4].str() == "Fatal";
  s.text = m[5].str();
  return s;
}

std::vector<KernelSxid> KernelSxidsOf(const std::vector<std::string>& lines) {
  std::vector<KernelSxid> sxids;
  for (const std::string& line : lines) {
    if (IsBootLine(line)) sxids.clear();
    else if (std::optional<KernelSxid> s = ParseSxidLine(line)) sxids.push_back(*s);
  }
  return sxids;
}

}  // namespace labcheck::gpu::health
