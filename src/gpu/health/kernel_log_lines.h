// The kernel log's records as lines, whatever wrote them down. One printk of the NVIDIA driver can
// hold several lines (its "fallen off the bus" message at probe is three, "NVRM: The NVIDIA GPU
// …\nNVRM: (PCI ID: …) installed in this system has\nNVRM: fallen off the bus …", one nv_printf in
// open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osapi.c), and each reader shows them
// its own way: /dev/kmsg keeps the record whole and escapes the inner newlines as "\x0a" (the
// kernel escapes every byte below ' ' in a record's text: kernel/printk/printk.c, msg_add_ext_text;
// Documentation/ABI/testing/dev-kmsg), rsyslog's files write them as "#012" (its control-character
// escaping, on by default), and `dmesg` and `journalctl -k` print them as lines of their own,
// indented. Every reader's form becomes the same lines here, each with its record's clock.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace labcheck::gpu::health {

struct LogLine {
  std::string text;              // one line of a record, without the record's /dev/kmsg header
  std::optional<double> time_s;  // the kernel's clock of its record (seconds since boot), where the log has it
};

// The lines of the records (each as `dmesg`, `journalctl -k`, rsyslog or /dev/kmsg gives it).
// A /dev/kmsg record's dictionary (the lines after its message that begin with a space:
// " SUBSYSTEM=pci", " DEVICE=+pci:…") is not part of its text and is dropped.
std::vector<LogLine> KernelLogLinesOf(const std::vector<std::string>& records);

// The kernel's clock of a record: /dev/kmsg's "6,1234,5678901,-;" (microseconds) or dmesg's
// "[ 5678.901234]"; none for journalctl's default wall-clock stamp.
std::optional<double> KernelTime(const std::string& record);

// Whether the line starts a boot ("Linux version …"): what came before it is another boot's.
bool IsBootLine(const std::string& line);

// The version in the driver's load line ("NVRM: loading NVIDIA UNIX x86_64 Kernel Module
// 570.86.15  …" or "… Open Kernel Module for x86_64  580.95.05  Release Build …", the driver's
// "NVRM: loading %s" with its id string, kernel-open/nvidia/nv.c): "570.86.15". An empty string for
// a load line without a version; nullopt for any other line.
std::optional<std::string> DriverLoadVersion(const std::string& line);

// "0000:3b:00" from a bus id the driver printed as "0000:3B:00", "0000:3b:00.0" or, without its
// PCI domain, "3b:00.0" (domain 0000): the domain:bus:device form the XID lines use.
std::string KernelPci(const std::string& printed);

}  // namespace labcheck::gpu::health
