#include "cpu_bench/cache_size.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <set>
#include <utility>

#include "env/sysfs.h"

namespace labcheck::cpu_bench {

std::optional<uint64_t> ParseCacheSize(std::string_view text) {
  std::string trimmed = env::Trim(text);
  uint64_t value = 0;
  auto [end, error] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  if (error != std::errc() || end == trimmed.data()) return std::nullopt;
  std::string_view unit(end, trimmed.data() + trimmed.size() - end);
  if (unit.empty()) return value;
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  if (unit == "G") return value << 30;
  return std::nullopt;
}

std::optional<uint64_t> TotalLastLevelCacheBytes(const std::vector<CacheEntry>& entries) {
  int top = 0;
  for (const CacheEntry& entry : entries) {
    if (entry.type != "Instruction") top = std::max(top, entry.level);
  }
  if (top == 0) return std::nullopt;
  std::set<std::string> seen;  // one instance per distinct set of sharing CPUs
  uint64_t total = 0;
  for (const CacheEntry& entry : entries) {
    if (entry.level != top || entry.type == "Instruction") continue;
    if (!seen.insert(entry.shared_cpu_list).second) continue;
    total += ParseCacheSize(entry.size).value_or(0);
  }
  return total > 0 ? std::optional<uint64_t>(total) : std::nullopt;
}

std::vector<CacheEntry> ReadCacheEntries() {
  std::vector<CacheEntry> entries;
  const std::string root = "/sys/devices/system/cpu/";
  for (const std::string& cpu : env::ListDirectory(root)) {
    if (cpu.size() < 4 || cpu.compare(0, 3, "cpu") != 0 || !std::isdigit(static_cast<unsigned char>(cpu[3]))) {
      continue;
    }
    const std::string cache_dir = root + cpu + "/cache/";
    for (const std::string& index : env::ListDirectory(cache_dir)) {
      if (index.rfind("index", 0) != 0) continue;
      const std::string dir = cache_dir + index + "/";
      auto level = env::ReadFirstLine(dir + "level");
      auto type = env::ReadFirstLine(dir + "type");
      auto size = env::ReadFirstLine(dir + "size");
      auto shared = env::ReadFirstLine(dir + "shared_cpu_list");
      if (!level.ok() || !type.ok() || !size.ok() || !shared.ok()) continue;
      CacheEntry entry;
      entry.level = std::atoi(level->c_str());
      entry.type = env::Trim(*type);
      entry.size = env::Trim(*size);
      entry.shared_cpu_list = env::Trim(*shared);
      entries.push_back(std::move(entry));
    }
  }
  return entries;
}

}  // namespace labcheck::cpu_bench
