#include "env/cpu_info.h"

#include <charconv>
#include <map>
#include <sstream>
#include <utility>

#include "env/sysfs.h"

namespace labcheck::env {
namespace {

std::optional<long> ToLong(std::string_view text) {
  long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "key\t: value" -> (key, value), both trimmed; false for lines without a colon.
bool SplitField(std::string_view line, std::string& key, std::string& value) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  key = Trim(line.substr(0, colon));
  value = Trim(line.substr(colon + 1));
  return true;
}

}  // namespace

Result<CpuInfo> ParseCpuInfo(std::string_view cpuinfo) {
  CpuInfo info;
  std::set<std::pair<long, long>> cores;
  std::set<long> sockets;
  bool topology_complete = true;
  long physical_id = -1;
  long core_id = -1;
  bool in_processor = false;

  // Each logical CPU is a block of "key: value" lines that starts with "processor".
  auto finish_block = [&] {
    if (!in_processor) return;
    if (physical_id < 0 || core_id < 0) topology_complete = false;
    sockets.insert(physical_id);
    cores.insert({physical_id, core_id});
  };

  std::istringstream lines{std::string(cpuinfo)};
  std::string line, key, value;
  while (std::getline(lines, line)) {
    if (!SplitField(line, key, value)) continue;
    if (key == "processor") {
      finish_block();
      in_processor = true;
      physical_id = core_id = -1;
      ++info.threads;
    } else if (key == "model name" && info.model.empty()) {
      info.model = value;
    } else if (key == "vendor_id" && info.vendor.empty()) {
      info.vendor = value;
    } else if (key == "cpu family" && info.family < 0) {
      info.family = static_cast<int>(ToLong(value).value_or(-1));
    } else if (key == "model" && info.model_number < 0) {
      info.model_number = static_cast<int>(ToLong(value).value_or(-1));
    } else if (key == "physical id") {
      physical_id = ToLong(value).value_or(-1);
    } else if (key == "core id") {
      core_id = ToLong(value).value_or(-1);
    } else if ((key == "flags" || key == "Features") && info.flags.empty()) {
      std::istringstream words(value);
      for (std::string flag; words >> flag;) info.flags.insert(flag);
    } else if (key == "cpu MHz") {
      try {
        double mhz = std::stod(value);
        if (!info.current_mhz || mhz > *info.current_mhz) info.current_mhz = mhz;
      } catch (const std::exception&) {
        // A malformed clock is only a missing clock.
      }
    }
  }
  finish_block();

  if (info.threads == 0) return Status::Error("no \"processor\" entries in /proc/cpuinfo");
  if (info.model.empty()) info.model = "unknown";
  if (topology_complete) {
    info.sockets = static_cast<int>(sockets.size());
    info.cores = static_cast<int>(cores.size());
  } else {
    info.sockets = 1;
    info.cores = info.threads;
  }
  return info;
}

Result<std::vector<int>> ParseIdList(std::string_view list) {
  std::vector<int> ids;
  std::string text = Trim(list);
  if (text.empty()) return ids;
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    size_t dash = part.find('-');
    auto first = ToLong(std::string_view(part).substr(0, dash));
    auto last = dash == std::string::npos ? first : ToLong(std::string_view(part).substr(dash + 1));
    if (!first || !last || *last < *first || *first < 0) {
      return Status::Error("malformed id list \"" + text + "\"");
    }
    for (long id = *first; id <= *last; ++id) ids.push_back(static_cast<int>(id));
  }
  return ids;
}

void ApplyTopology(const std::vector<CpuPlace>& places, CpuInfo& info) {
  if (places.empty()) return;
  std::set<int> sockets;
  std::set<std::pair<int, int>> cores;
  for (const CpuPlace& place : places) {
    sockets.insert(place.package_id);
    cores.insert({place.package_id, place.core_id});
  }
  info.sockets = static_cast<int>(sockets.size());
  info.cores = static_cast<int>(cores.size());
}

Result<CpuInfo> ReadCpuInfo(const std::string& root) {
  auto text = ReadFile(root + "/proc/cpuinfo");
  if (!text.ok()) return text.status();
  auto parsed = ParseCpuInfo(*text);
  if (!parsed.ok()) return parsed.status();
  CpuInfo info = std::move(parsed).value();

  // cpuinfo on ARM has no topology lines; sysfs has it on every architecture.
  if (info.cores == info.threads && info.sockets == 1) {
    std::vector<CpuPlace> places;
    for (const std::string& name : ListDirectory(root + "/sys/devices/system/cpu")) {
      if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 || !ToLong(name.substr(3))) continue;
      std::string dir = root + "/sys/devices/system/cpu/" + name + "/topology/";
      auto package = ReadFirstLine(dir + "physical_package_id");
      auto core = ReadFirstLine(dir + "core_id");
      if (!package.ok() || !core.ok()) continue;
      auto package_id = ToLong(Trim(*package));
      auto core_id = ToLong(Trim(*core));
      if (package_id && core_id) {
        places.push_back({static_cast<int>(*package_id), static_cast<int>(*core_id)});
      }
    }
    if (static_cast<int>(places.size()) == info.threads) ApplyTopology(places, info);
  }

  // cpuinfo_max_freq is in kHz; absent in most VMs and without a cpufreq driver. The highest of
  // all cores: on hybrid and "preferred core" CPUs, cpu0 need not be the one that boosts highest.
  for (const std::string& name : ListDirectory(root + "/sys/devices/system/cpu")) {
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 || !ToLong(name.substr(3))) continue;
    auto khz = ReadFirstLine(root + "/sys/devices/system/cpu/" + name + "/cpufreq/cpuinfo_max_freq");
    if (!khz.ok()) continue;
    if (auto value = ToLong(Trim(*khz)); value && *value > 0 && (!info.max_mhz || *value / 1000.0 > *info.max_mhz)) {
      info.max_mhz = *value / 1000.0;
    }
  }
  if (auto nodes = ReadFirstLine(root + "/sys/devices/system/node/online"); nodes.ok()) {
    if (auto ids = ParseIdList(*nodes); ids.ok() && !ids->empty()) {
      info.numa_nodes = static_cast<int>(ids->size());
    }
  }
  return info;
}

}  // namespace labcheck::env
