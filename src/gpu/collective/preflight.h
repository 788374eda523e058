// Findings that make NCCL hang or fall back before any GPU is touched: the IOMMU (with DMA
// remapping on, GPU-to-GPU traffic goes through it and P2P often stalls: NCCL's troubleshooting
// asks for iommu=pt or off), PCIe ACS redirection on bridges (it routes P2P through the root
// complex, and with ACS on the NCCL docs report hangs), and the size of /dev/shm (NCCL's SHM
// transport lives there; Docker's 64 MiB default makes it fail). Reads /sys and /proc only.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace labcheck::gpu {

struct AcsBridge {
  std::string bdf;           // "0000:00:01.1"
  bool request_redirect;     // ReqRedir+
  bool completion_redirect;  // CmpltRedir+
};

struct Preflight {
  bool iommu_groups_present = false;  // /sys/kernel/iommu_groups has entries: remapping is active
  std::string iommu_cmdline;          // the kernel command line's iommu options, as written
  bool iommu_passthrough = false;     // iommu=pt: devices bypass translation (what NCCL wants)
  std::vector<AcsBridge> acs_redirecting;  // bridges with ACS redirection on
  int bridges_checked = 0;
  int bridges_unreadable = 0;         // config space beyond 64 bytes needs root
  std::optional<double> shm_gib;      // /dev/shm size

  bool IommuRisk() const { return iommu_groups_present && !iommu_passthrough; }
  bool ShmTooSmall() const { return shm_gib && *shm_gib < 0.5; }
  nlohmann::json ToJson() const;
};

// `root` prefixes every path ("/" normally; a fake tree in tests). `shm_path` is statvfs'ed.
Preflight ReadPreflight(const std::string& root, const std::string& shm_path);

// ACS control bits of one PCI function's config space; nullopt when it has no ACS capability or
// the config space is too short to hold extended capabilities (read without root).
struct AcsControl {
  bool source_validation, translation_blocking, request_redirect, completion_redirect, upstream_forwarding;
};
std::optional<AcsControl> ParseAcsControl(const std::vector<uint8_t>& config_space);

}  // namespace labcheck::gpu
