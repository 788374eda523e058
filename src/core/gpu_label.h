// How a card is named to a person. Tables count cards by CUDA's ordinal (GPU0, GPU1…, what a
// program sees); nvidia-smi and NVML count in PCI bus order, and CUDA_VISIBLE_DEVICES or
// CUDA_DEVICE_ORDER make the two counts differ, so `nvidia-smi -i 0` may be another card than
// GPU0 (a reset or a power limit aimed at somebody else's card). Findings therefore carry the bus
// id beside the ordinal, and every nvidia-smi hint names the card by its bus id.
#pragma once
#include <string>

namespace labcheck {

// "GPU0 (0000:81:00.0)"; "GPU0" when the bus id is unknown.
std::string GpuLabel(int cuda_index, const std::string& pci_bus_id);

// What `nvidia-smi -i` takes for this card: its bus id as NVML and nvidia-smi print it
// ("00000000:81:00.0", nvml.h's NVML_DEVICE_PCI_BUS_ID_FMT "%08X:%02X:%02X.0"; nvidia-smi's -i
// accepts "the GPU's PCI bus ID (as domain:bus:device.function in hex)"). Unknown: a placeholder
// that says where to read it, never the CUDA ordinal.
std::string NvidiaSmiId(const std::string& pci_bus_id);

}  // namespace labcheck
