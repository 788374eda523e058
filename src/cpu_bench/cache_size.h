// The size of the last-level caches, which the STREAM rule says each array must exceed 4-fold so
// that what is timed is memory, not cache. Read from /sys/devices/system/cpu/cpu*/cache/index*/.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace labcheck::cpu_bench {

// "32768K", "1M", "512" (bytes) → bytes; empty when malformed.
std::optional<uint64_t> ParseCacheSize(std::string_view text);

// One cache as one CPU's index*/ directory reports it.
struct CacheEntry {
  int level = 0;
  std::string type;             // "Data", "Instruction", "Unified"
  std::string size;             // "32768K"
  std::string shared_cpu_list;  // "0-7,64-71": the CPUs sharing this very cache instance
};

// Σ of the distinct highest-level data/unified caches (each instance counted once, however many
// CPUs list it); empty when there are none.
std::optional<uint64_t> TotalLastLevelCacheBytes(const std::vector<CacheEntry>& entries);

// Reads this machine's sysfs cache entries (none in many VMs).
std::vector<CacheEntry> ReadCacheEntries();

}  // namespace labcheck::cpu_bench
