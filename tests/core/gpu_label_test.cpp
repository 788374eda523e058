// A card named by its CUDA ordinal and its bus id; nvidia-smi given the bus id, never the ordinal.
#include <gtest/gtest.h>

#include "core/gpu_label.h"

namespace labcheck {
namespace {

TEST(GpuLabel, OrdinalAndBusId) {
  EXPECT_EQ(GpuLabel(0, "0000:81:00.0"), "GPU0 (0000:81:00.0)");
  EXPECT_EQ(GpuLabel(3, ""), "GPU3");
}

TEST(NvidiaSmiId, TheBusIdAsNvidiaSmiPrintsIt) {
  // nvml.h's NVML_DEVICE_PCI_BUS_ID_FMT: "%08X:%02X:%02X.0".
  EXPECT_EQ(NvidiaSmiId("0000:81:00.0"), "00000000:81:00.0");
  EXPECT_EQ(NvidiaSmiId("0000:3b:00.0"), "00000000:3B:00.0");
  EXPECT_EQ(NvidiaSmiId("00000001:c1:00.0"), "00000001:C1:00.0");
  // Unknown: a placeholder, never a number nvidia-smi would take as another card's index.
  EXPECT_EQ(NvidiaSmiId(""), "<pci.bus_id>");
  EXPECT_EQ(NvidiaSmiId("garbage"), "<pci.bus_id>");
}

}  // namespace
}  // namespace labcheck
