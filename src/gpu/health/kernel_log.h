// The kernel log's XID lines ("NVRM: Xid (PCI:0000:3b:00): 79, ...") since boot, with what the
// log says happened after each: the driver loaded again ("NVRM: loading NVIDIA UNIX ... Kernel
// Module", printed each time the nvidia module loads) or an administrator's note that the GPU was
// reset. The log is read from /dev/kmsg (readable without root only where kernel.dmesg_restrict
// is 0) or from a file holding what `dmesg` or `journalctl -k` prints (sites that ship their logs;
// the tests). Order in the log decides "after"; the kernel's timestamp is kept for the report.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace labcheck::gpu::health {

struct KernelXid {
  std::string pci;  // "0000:3b:00" as the driver prints it (domain:bus:device, lower case)
  int xid = 0;
  std::string line;              // from "NVRM: Xid" on
  std::optional<double> time_s;  // the kernel's clock (seconds since boot), where the log has it
  // What a later line of the log shows: "driver_load" (the nvidia module loaded again: every GPU
  // was initialised afresh) or "gpu_reset" (the note `lab_check: GPU 0000:3b:00 reset` written to
  // /dev/kmsg after `nvidia-smi -r`: the driver itself logs no line for a reset). Empty: nothing.
  std::string cleared_by;
  std::optional<double> cleared_at_s;
};

// One kernel log message → the XID it reports, if it is an "NVRM: Xid" line.
std::optional<KernelXid> ParseXidLine(const std::string& message);

// The XIDs of a log's lines, in order (each line as `dmesg`, `journalctl -k` or a /dev/kmsg
// record prints it). A "Linux version" line starts a boot: what came before it is dropped.
std::vector<KernelXid> KernelXidsOf(const std::vector<std::string>& lines);

// The kernel log's lines at `path`: /dev/kmsg's records, or a text file's lines; or why not.
Result<std::vector<std::string>> ReadKernelLogLines(const std::string& path = "/dev/kmsg");

// Every XID line of the kernel log at `path` (/dev/kmsg, or a text file), or why it cannot be read.
Result<std::vector<KernelXid>> ReadKernelXids(const std::string& path = "/dev/kmsg");

// Whether the line starts a boot ("Linux version …"): what came before it is another boot's.
bool IsBootLine(const std::string& line);

// Whether `kernel_pci` ("0000:3b:00") names the GPU at canonical bus id `bus_id` ("0000:3b:00.0").
bool SameGpu(const std::string& kernel_pci, const std::string& bus_id);

// The note an administrator writes to the kernel log after resetting a GPU, for `pci` "0000:3b:00".
std::string ResetNote(const std::string& pci);

}  // namespace labcheck::gpu::health
