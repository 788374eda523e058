// Installed memory modules from SMBIOS type 17 ("Memory Device") records, and the theoretical host
// memory bandwidth they give: Σ over channels of transfer rate × bus width. Linux exposes each
// record as /sys/firmware/dmi/entries/17-N/raw, readable by root only, and not at all in most VMs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/text.h"

namespace labcheck::cpu_bench {

struct MemoryModule {
  bool installed = false;        // size field non-zero
  uint64_t size_bytes = 0;       // 0 when installed but of unknown size
  int data_width_bits = 0;       // without ECC bits; 0 = unknown
  uint32_t rated_mts = 0;        // "Speed": what the module is rated for, MT/s; 0 = unknown
  uint32_t configured_mts = 0;   // "Configured Memory Speed": what it runs at; 0 = unknown
  uint16_t array_handle = 0;     // the physical memory array (often one per socket)
  std::string type;              // "DDR4", "DDR5", "LPDDR5", … or "type 0xNN"
  std::string device_locator;    // "DIMM_A1", "ChannelA-DIMM0"
  std::string bank_locator;      // "P0 CHANNEL A", "BANK 0"
  // Serial numbers and asset tags are never read: they identify the machine.

  uint32_t effective_mts() const { return configured_mts ? configured_mts : rated_mts; }
};

// Parses one raw type 17 record: the formatted area (its length at byte 1) followed by its strings.
// Fields newer than the record's SMBIOS version stay 0.
Result<MemoryModule> ParseMemoryModule(std::string_view raw);

// The memory channel a module sits in, from its locators: "P0 CHANNEL A", "ChannelA-DIMM0",
// "P0_Node0_Channel0_Dimm1" (a channel named in either locator), or "DIMM_A1"/"DIMM_A2" (the
// letter before the slot number). Empty when the names do not say (e.g. Dell's "A1", "A2").
std::optional<std::string> ChannelOf(const MemoryModule& module);

struct MemoryPeak {
  double gbps = 0;          // 10^9 bytes per second
  int channels = 0;
  int modules = 0;
  bool channels_assumed = false;  // one module per channel assumed: the locators did not say
  Text label;  // "8 channels × DDR4-3200 × 8 bytes"
};

// Theoretical bandwidth of the installed modules. In a channel with two modules they take turns,
// so each channel counts once, at its fastest module. Error when no module has a speed and width.
Result<MemoryPeak> TheoreticalMemoryPeak(const std::vector<MemoryModule>& modules);

struct ModuleScan {
  std::vector<MemoryModule> modules;
  Text why_none;       // for the report, when `modules` is empty
  std::string detail;  // the system's own message behind it (path, errno), for the JSON
};

// Reads every /sys/firmware/dmi/entries/17-*/raw record. When none can be read, says why: no
// SMBIOS (VMs, containers, ARM boards), root-only files, or no memory device records.
ModuleScan ReadMemoryModules();

}  // namespace labcheck::cpu_bench
