// "GPU has fallen off the bus" as the NVIDIA driver says it without an Xid number. Two messages
// (open-gpu-kernel-modules 595.45.04, commit df1c9a3de2be4b130f4fc7680f7198193d8ac6ad):
//   - while running, right after XID 79: NV_DEV_PRINTF's "NVRM: GPU 0000:29:00.0: GPU has fallen
//     off the bus." (src/nvidia/arch/nvalloc/unix/src/osinit.c; the prefix from
//     kernel-open/common/inc/os-interface.h), then "NVRM: GPU 0000:29:00.0: GPU serial number is N.";
//   - at probe, when the card's registers read all ones, one printk of three lines: "NVRM: The
//     NVIDIA GPU 0000:b3:00.0" / "NVRM: (PCI ID: 10de:26b5) installed in this system has" / "NVRM:
//     fallen off the bus and is not responding to commands." (osapi.c); older drivers broke the
//     same words elsewhere and left out the PCI domain.
// leptonai/gpud reads both as XID 79 (components/accelerator/nvidia/xid/kmsg.go); NVIDIA's
// NVSentinel raises the second as a RESTART_BM event (syslog-health-monitor/pkg/gpufallen).
#pragma once
#include <optional>
#include <string>

#include "gpu/health/kernel_log_lines.h"

namespace labcheck::gpu::health {

struct FallenOffBus {
  std::string pci;     // "0000:29:00", as XID lines name a card
  std::string form;    // "gpu_line" (the running driver's line) or "probe_message" (the three lines at probe)
  std::string pci_id;  // "10de:26b5" where the probe message has it
  std::string line;    // from "NVRM:" on; the probe message's lines joined with a space
  std::optional<double> time_s;
};

// Reads the log line by line: the probe message spans lines that arrive one at a time.
class FallenOffBusMatcher {
 public:
  // The message this line completes, if any.
  std::optional<FallenOffBus> Feed(const LogLine& line);

 private:
  std::optional<FallenOffBus> pending_;  // "The NVIDIA GPU …" seen, its last line not yet
  int lines_left_ = 0;
};

}  // namespace labcheck::gpu::health
