#include "gpu/collective/preflight.h"

#include <sys/statvfs.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/units.h"

namespace labcheck::gpu {
namespace fs = std::filesystem;

namespace {

constexpr uint16_t kAcsCapabilityId = 0x000D;  // PCIe extended capability: Access Control Services
constexpr size_t kExtendedConfigStart = 0x100;

uint32_t Read32(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint32_t>(b[at]) | static_cast<uint32_t>(b[at + 1]) << 8 | static_cast<uint32_t>(b[at + 2]) << 16 |
         static_cast<uint32_t>(b[at + 3]) << 24;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::optional<AcsControl> ParseAcsControl(const std::vector<uint8_t>& config) {
  if (config.size() < kExtendedConfigStart + 8) return std::nullopt;
  size_t offset = kExtendedConfigStart;
  for (int hops = 0; hops < 64 && offset >= kExtendedConfigStart && offset + 8 <= config.size(); ++hops) {
    uint32_t header = Read32(config, offset);
    if (header == 0 || header == 0xFFFFFFFF) return std::nullopt;
    if ((header & 0xFFFF) == kAcsCapabilityId) {
      uint16_t control = static_cast<uint16_t>(config[offset + 6] | config[offset + 7] << 8);
      return AcsControl{(control & 0x1) != 0, (control & 0x2) != 0, (control & 0x4) != 0, (control & 0x8) != 0,
                        (control & 0x10) != 0};
    }
    offset = (header >> 20) & 0xFFC;  // next capability pointer, dword aligned
  }
  return std::nullopt;
}

Preflight ReadPreflight(const std::string& root, const std::string& shm_path) {
  Preflight p;
  std::error_code error;
  const fs::path base(root);
  fs::directory_iterator groups(base / "sys/kernel/iommu_groups", error);
  p.iommu_groups_present = !error && groups != fs::directory_iterator();

  std::istringstream cmdline(ReadText(base / "proc/cmdline"));
  for (std::string token; cmdline >> token;) {
    if (token.find("iommu") == std::string::npos) continue;
    p.iommu_cmdline += (p.iommu_cmdline.empty() ? "" : " ") + token;
    if (token == "iommu=pt" || token == "iommu.passthrough=1") p.iommu_passthrough = true;
  }

  fs::directory_iterator devices(base / "sys/bus/pci/devices", error);
  if (!error) {
    for (const fs::directory_entry& device : devices) {
      // Class 0x0604xx: PCI-to-PCI bridge (root ports and switch ports).
      if (ReadText(device.path() / "class").rfind("0x0604", 0) != 0) continue;
      ++p.bridges_checked;
      std::ifstream in(device.path() / "config", std::ios::binary);
      std::vector<uint8_t> config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (config.size() <= kExtendedConfigStart) {
        ++p.bridges_unreadable;
        continue;
      }
      std::optional<AcsControl> acs = ParseAcsControl(config);
      if (acs && (acs->request_redirect || acs->completion_redirect))
        p.acs_redirecting.push_back({device.path().filename().string(), acs->request_redirect, acs->completion_redirect});
    }
  }

  struct statvfs shm {};
  if (statvfs(shm_path.c_str(), &shm) == 0)
    p.shm_gib = static_cast<double>(shm.f_blocks) * shm.f_frsize / kBytesPerGiB;
  return p;
}

nlohmann::json Preflight::ToJson() const {
  nlohmann::json acs = nlohmann::json::array();
  for (const AcsBridge& b : acs_redirecting)
    acs.push_back({{"bdf", b.bdf}, {"request_redirect", b.request_redirect}, {"completion_redirect", b.completion_redirect}});
  return {{"iommu_groups_present", iommu_groups_present}, {"iommu_cmdline", iommu_cmdline},
          {"iommu_passthrough", iommu_passthrough}, {"acs_redirecting_bridges", acs},
          {"bridges_checked", bridges_checked}, {"bridges_unreadable", bridges_unreadable},
          {"shm_gib", shm_gib ? nlohmann::json(*shm_gib) : nlohmann::json(nullptr)}};
}

}  // namespace labcheck::gpu
