// NVSwitch errors in the kernel log: the nvswitch driver prints
//   "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)"
// (the driver's format "SXid (PCI:<bus id>): %05d, " then the severity it assigns and the text; the
// same lines NVSentinel and gpud parse). The driver's own word decides, so no table of SXid numbers
// is needed: a "Fatal" SXid fails the node until the log starts afresh at boot (NVIDIA's Fabric
// Manager guide has fatal NVSwitch errors cleared only by resetting the switches and their GPUs);
// "Non-fatal" ones are reported. A "Linux version" line starts a boot: earlier lines are dropped, as
// for XIDs (kernel_log.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace labcheck::gpu::health {

struct KernelSxid {
  std::string nvswitch;  // "nvidia-nvswitch3"
  std::string pci;       // "0000:05:00.0", lower case
  int sxid = 0;
  bool fatal = false;
  std::string text;      // what follows the severity: "Link 32 egress non-posted PRIV error (First)"
};

std::optional<KernelSxid> ParseSxidLine(const std::string& line);

// The SXids of a log's lines since its last boot, in order.
std::vector<KernelSxid> KernelSxidsOf(const std::vector<std::string>& lines);

}  // namespace labcheck::gpu::health
