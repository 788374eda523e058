#include "cpu_bench/memory_modules.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>

#include <unistd.h>

#include <fmt/format.h>

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "env/sysfs.h"
#include "core/text_util.h"

namespace labcheck::cpu_bench {
namespace {

// Offsets in the formatted area, from the DMTF SMBIOS specification (DSP0134), type 17.
constexpr size_t kArrayHandle = 0x04;
constexpr size_t kDataWidth = 0x0A;
constexpr size_t kSize = 0x0C;
constexpr size_t kDeviceLocator = 0x10;
constexpr size_t kBankLocator = 0x11;
constexpr size_t kMemoryType = 0x12;
constexpr size_t kSpeed = 0x15;             // SMBIOS 2.3
constexpr size_t kExtendedSize = 0x1C;      // 2.7
constexpr size_t kConfiguredSpeed = 0x20;   // 2.7
constexpr size_t kExtendedSpeed = 0x54;     // 3.3
constexpr size_t kExtendedConfigured = 0x58;

class Record {
 public:
  explicit Record(std::string_view raw) : raw_(raw), length_(static_cast<uint8_t>(raw[1])) {}
  size_t length() const { return length_; }
  bool Has(size_t offset, size_t bytes) const { return offset + bytes <= length_; }
  uint32_t Byte(size_t offset) const { return Has(offset, 1) ? static_cast<uint8_t>(raw_[offset]) : 0; }
  uint32_t Word(size_t offset) const { return Has(offset, 2) ? Byte(offset) | Byte(offset + 1) << 8 : 0; }
  uint32_t Dword(size_t offset) const {
    return Has(offset, 4) ? Word(offset) | Word(offset + 2) << 16 : 0;
  }
  // String n (1-based) of the string set after the formatted area; empty for 0 or missing.
  std::string String(size_t field) const {
    uint32_t index = Byte(field);
    if (index == 0) return {};
    size_t pos = length_;
    for (uint32_t i = 1; pos < raw_.size(); ++i) {
      size_t end = raw_.find('\0', pos);
      if (end == std::string_view::npos || end == pos) return {};  // end of the set
      if (i == index) return env::Trim(raw_.substr(pos, end - pos));
      pos = end + 1;
    }
    return {};
  }

 private:
  std::string_view raw_;
  size_t length_;
};

std::string TypeName(uint32_t code) {
  static const std::map<uint32_t, const char*> kNames = {
      {0x12, "DDR"},    {0x13, "DDR2"},   {0x18, "DDR3"},   {0x1A, "DDR4"},  {0x1B, "LPDDR"},
      {0x1C, "LPDDR2"}, {0x1D, "LPDDR3"}, {0x1E, "LPDDR4"}, {0x20, "HBM"},   {0x21, "HBM2"},
      {0x22, "DDR5"},   {0x23, "LPDDR5"}, {0x24, "HBM3"}};
  auto it = kNames.find(code);
  return it != kNames.end() ? it->second : fmt::format("type 0x{:02X}", code);
}

// A 16-bit speed of FFFFh means "see the 32-bit extended field" (65,535 MT/s or more).
uint32_t Speed(const Record& record, size_t word_offset, size_t extended_offset) {
  uint32_t speed = record.Word(word_offset);
  if (speed == 0xFFFF) return record.Dword(extended_offset) & 0x7FFFFFFF;
  return speed;
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

Result<MemoryModule> ParseMemoryModule(std::string_view raw) {
  if (raw.size() < 2 || static_cast<uint8_t>(raw[0]) != 17) {
    return Status::Error("not an SMBIOS type 17 record");
  }
  Record record(raw);
  if (record.length() < 0x15 || raw.size() < record.length()) {
    return Status::Error(fmt::format("type 17 record too short ({} bytes)", raw.size()));
  }
  MemoryModule module;
  module.array_handle = static_cast<uint16_t>(record.Word(kArrayHandle));
  uint32_t width = record.Word(kDataWidth);
  module.data_width_bits = width == 0xFFFF ? 0 : static_cast<int>(width);

  uint32_t size = record.Word(kSize);
  module.installed = size != 0;
  if (size == 0x7FFF) {
    module.size_bytes = uint64_t{record.Dword(kExtendedSize) & 0x7FFFFFFF} << 20;  // MiB
  } else if (size != 0xFFFF) {
    // Bit 15 set: the value is in KiB, else in MiB.
    module.size_bytes = (size & 0x8000) ? uint64_t{size & 0x7FFF} << 10 : uint64_t{size} << 20;
  }
  module.type = TypeName(record.Byte(kMemoryType));
  module.rated_mts = Speed(record, kSpeed, kExtendedSpeed);
  module.configured_mts = Speed(record, kConfiguredSpeed, kExtendedConfigured);
  module.device_locator = record.String(kDeviceLocator);
  module.bank_locator = record.String(kBankLocator);
  return module;
}

std::optional<std::string> ChannelOf(const MemoryModule& module) {
  // "...channel A", "...Channel0", "...ChannelA-..." in the bank locator first (servers put the
  // socket and channel there), then in the device locator (laptops: "ChannelA-DIMM0").
  static const std::regex kChannel(R"(^(.*?channel[ _-]?[a-z0-9]+))", std::regex::icase);
  static const std::regex kDimmLetter(R"(^(.*dimm[ _-]?[a-z])[0-9]+$)", std::regex::icase);
  std::smatch match;
  std::string prefix = fmt::format("array {:04x}: ", module.array_handle);
  for (const std::string* locator : {&module.bank_locator, &module.device_locator}) {
    if (std::regex_search(*locator, match, kChannel)) return prefix + Lower(match[1].str());
  }
  if (std::regex_match(module.device_locator, match, kDimmLetter)) {
    return prefix + Lower(match[1].str());
  }
  return std::nullopt;
}

Result<MemoryPeak> TheoreticalMemoryPeak(const std::vector<MemoryModule>& modules) {
  struct Channel {
    uint32_t mts = 0;
    int width_bits = 0;
    std::string type;
  };
  std::vector<const MemoryModule*> usable;
  for (const MemoryModule& module : modules) {
    if (module.installed && module.effective_mts() > 0 && module.data_width_bits > 0) {
      usable.push_back(&module);
    }
  }
  if (usable.empty()) return Status::Error("no installed module reports its speed and width");

  MemoryPeak peak;
  peak.modules = static_cast<int>(usable.size());
  bool all_named = std::all_of(usable.begin(), usable.end(),
                               [](const MemoryModule* m) { return ChannelOf(*m).has_value(); });
  peak.channels_assumed = !all_named;
  std::map<std::string, Channel> channels;
  for (size_t i = 0; i < usable.size(); ++i) {
    const MemoryModule& module = *usable[i];
    std::string key = all_named ? *ChannelOf(module) : std::to_string(i);
    Channel& channel = channels[key];
    if (module.effective_mts() * module.data_width_bits > channel.mts * channel.width_bits) {
      channel = {module.effective_mts(), module.data_width_bits, module.type};
    }
  }
  peak.channels = static_cast<int>(channels.size());
  for (const auto& [key, channel] : channels) {
    peak.gbps += channel.mts * 1e6 * (channel.width_bits / 8.0) / 1e9;
  }

  const Channel& first = channels.begin()->second;
  bool uniform = std::all_of(channels.begin(), channels.end(), [&](const auto& entry) {
    return entry.second.mts == first.mts && entry.second.width_bits == first.width_bits &&
           entry.second.type == first.type;
  });
  std::string assumed_ru = peak.channels_assumed ? " (по модулю на канал)" : "";
  std::string assumed_en = peak.channels_assumed ? " (one module per channel)" : "";
  if (uniform) {
    const int width_bytes = first.width_bits / 8;
    peak.label = T(fmt::format("{} {}{} × {}-{} × {} {}", peak.channels,
                               RuPlural(peak.channels, "канал", "канала", "каналов"),
                               assumed_ru, first.type, first.mts, width_bytes,
                               RuPlural(width_bytes, "байт", "байта", "байт")),
                   fmt::format("{} channel{}{} × {}-{} × {} bytes", peak.channels,
                               peak.channels == 1 ? "" : "s", assumed_en, first.type, first.mts,
                               first.width_bits / 8));
  } else {
    peak.label = T(fmt::format("сумма по {} каналам{}: скорость × ширина шины", peak.channels, assumed_ru),
                   fmt::format("sum over {} channels{}: rate × bus width", peak.channels, assumed_en));
  }
  return peak;
}

ModuleScan ReadMemoryModules() {
  const std::string dir = "/sys/firmware/dmi/entries";
  ModuleScan scan;
  std::vector<std::string> names = env::ListDirectory(dir);
  if (names.empty()) {
    scan.why_none = T("таблиц SMBIOS нет (" + dir + "): так обычно в виртуальных машинах и контейнерах",
                      "no SMBIOS tables (" + dir + "): usual in virtual machines and containers");
    return scan;
  }
  bool denied = false;
  for (const std::string& name : names) {
    if (name.rfind("17-", 0) != 0) continue;
    const std::string path = dir + "/" + name + "/raw";
    if (access(path.c_str(), R_OK) != 0) {
      denied = denied || errno == EACCES;
      if (scan.detail.empty()) scan.detail = path + ": " + std::strerror(errno);
      continue;
    }
    auto raw = ReadFile(path);
    auto module = raw.ok() ? ParseMemoryModule(*raw) : Result<MemoryModule>(raw.status());
    if (module.ok()) {
      scan.modules.push_back(std::move(module).value());
    } else if (scan.detail.empty()) {
      scan.detail = path + ": " + module.status().message();
    }
  }
  if (!scan.modules.empty()) {
    scan.detail.clear();
  } else if (denied) {
    scan.why_none = T("записи SMBIOS о модулях памяти читает только root; их показывает "
                      "sudo dmidecode -t 17",
                      "only root can read the SMBIOS memory records; sudo dmidecode -t 17 shows them");
  } else if (scan.detail.empty()) {
    scan.why_none = T("в SMBIOS нет записей о модулях памяти (тип 17)",
                      "SMBIOS has no memory device records (type 17)");
  } else {
    scan.why_none = T("записи SMBIOS о модулях памяти не разобраны", "the SMBIOS memory records could not be parsed");
  }
  return scan;
}

}  // namespace labcheck::cpu_bench
