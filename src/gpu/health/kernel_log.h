// The kernel log's XID lines since boot, with what the log says happened after each: the driver
// loaded again ("NVRM: loading NVIDIA UNIX ... Kernel Module", printed each time the nvidia module
// loads) or an administrator's note that the GPU was reset. The log is read from /dev/kmsg
// (readable without root only where kernel.dmesg_restrict is 0) or from a file holding what `dmesg`,
// `journalctl -k` or rsyslog wrote (sites that ship their logs; the tests). Order in the log decides
// "after"; the kernel's timestamp is kept for the report.
//
// The XID lines in every form the driver wrote them: "NVRM: Xid (PCI:0000:3b:00): 79, …" and older
// drivers' "NVRM: Xid (0000:03:00): 14, Channel 00000001" without "PCI:" (the form leptonai/gpud and
// Meta's gcm read too). "GPU has fallen off the bus" said without an Xid number (fallen_off_bus.h)
// is XID 79 in other words, as gpud reads it and NVIDIA's catalog names XID 79: one record per card,
// each line of the same event kept as its evidence.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/health/kernel_log_lines.h"  // IsBootLine, KernelTime

namespace labcheck::gpu::health {

// One line of the log that says the same as a record's: {"xid", "NVRM: Xid (…): 79, …"}.
struct XidEvidence {
  std::string form;  // "xid", "gpu_line", "probe_message" (fallen_off_bus.h)
  std::string line;
};

struct KernelXid {
  std::string pci;  // "0000:3b:00" as the driver prints it (domain:bus:device, lower case)
  int xid = 0;
  std::string line;              // from "NVRM:" on
  std::string form = "xid";      // how the driver said it: "xid", or for XID 79 "gpu_line" or "probe_message"
  std::vector<XidEvidence> also;  // later lines of the log that say the same of this card (XID 79 only)
  std::optional<double> time_s;  // the kernel's clock (seconds since boot), where the log has it
  // The version of the driver that wrote the line: the last "NVRM: loading …" before it in this
  // boot ("570.86.15"); empty when the log does not show it. NVLink5 XIDs are decoded by it.
  std::string driver_version;
  // The card's board serial and UUID where the log names them ("NVRM: GPU at PCI:0000:91:00:
  // GPU-…", "NVRM: GPU Board Serial Number: …", "NVRM: GPU 0000:91:00.0: GPU serial number is …."):
  // what an RMA needs for a card the driver no longer lists.
  std::string serial, uuid;
  // What a later line of the log shows: "driver_load" (the nvidia module loaded again: every GPU
  // was initialised afresh) or "gpu_reset" (the note `lab_check: GPU 0000:3b:00 reset` written to
  // /dev/kmsg after `nvidia-smi -r`: the driver itself logs no line for a reset). Empty: nothing.
  std::string cleared_by;
  std::optional<double> cleared_at_s;
};

// One kernel log message → the XID it reports, if it is an "NVRM: Xid" line (with or without
// "PCI:" before the bus id). Lines that only look like one (no bus id in parentheses, no number
// after it, an NVSwitch's "SXid") are not.
std::optional<KernelXid> ParseXidLine(const std::string& message);

// The XIDs of a log's records, in order (each as `dmesg`, `journalctl -k`, rsyslog or a /dev/kmsg
// record gives it). A "Linux version" line starts a boot: what came before it is dropped.
std::vector<KernelXid> KernelXidsOf(const std::vector<std::string>& lines);

// The kernel log's lines at `path`: /dev/kmsg's records, or a text file's lines; or why not.
Result<std::vector<std::string>> ReadKernelLogLines(const std::string& path = "/dev/kmsg");

// Every XID line of the kernel log at `path` (/dev/kmsg, or a text file), or why it cannot be read.
Result<std::vector<KernelXid>> ReadKernelXids(const std::string& path = "/dev/kmsg");

// Whether `kernel_pci` ("0000:3b:00") names the GPU at canonical bus id `bus_id` ("0000:3b:00.0").
bool SameGpu(const std::string& kernel_pci, const std::string& bus_id);

// The note an administrator writes to the kernel log after resetting a GPU, for `pci` "0000:3b:00".
std::string ResetNote(const std::string& pci);

}  // namespace labcheck::gpu::health
