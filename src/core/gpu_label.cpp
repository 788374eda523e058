#include "core/gpu_label.h"

#include <cstdio>

#include <fmt/format.h>

namespace labcheck {

std::string GpuLabel(int cuda_index, const std::string& pci_bus_id) {
  return pci_bus_id.empty() ? fmt::format("GPU{}", cuda_index) : fmt::format("GPU{} ({})", cuda_index, pci_bus_id);
}

std::string NvidiaSmiId(const std::string& pci_bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char tail = 0;
  if (std::sscanf(pci_bus_id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) == 4)
    return fmt::format("{:08X}:{:02X}:{:02X}.{:X}", domain, bus, device, function);
  return "<pci.bus_id>";  // nvidia-smi --query-gpu=index,pci.bus_id --format=csv lists them
}

}  // namespace labcheck
