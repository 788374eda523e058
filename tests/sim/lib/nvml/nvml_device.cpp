// libnvidia-ml.so.1 sim: what a GPU is (name, UUID, PCI info, memory) and how it is set up
// (ECC mode, persistence, power limits). Fixed values, read from the profile.
#include <cstdio>
#include <string>

#include "nvml/nvml_internal.h"

using namespace nvmlsim;

namespace {

unsigned PciDeviceId(const nvsim::Gpu& g) {
  unsigned id = 0;
  std::sscanf(g.String("pci_device_id").c_str(), "%x", &id);
  return (id << 16) | 0x10DE;  // device id in the high half, NVIDIA's vendor id in the low
}

nvmlReturn_t PciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (pci == nullptr) return kInvalidArgument;
  FillPciInfo(g->bus_id, PciDeviceId(*g), pci);
  return kSuccess;
}

// A Watt figure of the profile in milliwatts; NOT_SUPPORTED when the profile has none.
nvmlReturn_t Milliwatts(nvmlDevice_t device, const char* path, unsigned* milliwatts) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (milliwatts == nullptr) return kInvalidArgument;
  const nvsim::json* watts = g->At(path);
  if (watts == nullptr || !watts->is_number() || watts->get<double>() < 0) return kNotSupported;
  *milliwatts = static_cast<unsigned>(watts->get<double>() * 1000);
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetName, (nvmlDevice_t device, char* name, unsigned length)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  return CopyString(g->name, name, length);
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetUUID, (nvmlDevice_t device, char* uuid, unsigned length)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  char made[64];
  std::snprintf(made, sizeof made, "GPU-%08x-5a5a-5a5a-5a5a-%012x", 0x51300000u + g->index, g->index);
  const nvsim::json* given = g->At("uuid");
  return CopyString(given != nullptr && given->is_string() ? given->get<std::string>() : made, uuid, length);
}

// nvml.h: the board serial "for all products with an inforom", at most 30 characters with the NUL;
// NOT_SUPPORTED where the card has none (GeForce): the profile's "serial", absent on such cards.
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetSerial, (nvmlDevice_t device, char* serial, unsigned length)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (serial == nullptr) return kInvalidArgument;
  const nvsim::json* given = g->At("serial");
  if (given == nullptr || !given->is_string()) return kNotSupported;
  std::string text = given->get<std::string>();
  if (const size_t at = text.find("{index}"); at != std::string::npos) text.replace(at, 7, std::to_string(g->index));
  return CopyString(text, serial, length);
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetPciInfo_v3, (nvmlDevice_t device, nvmlPciInfo_t* pci)) { return PciInfo(device, pci); }
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetPciInfo_v2, (nvmlDevice_t device, nvmlPciInfo_t* pci)) { return PciInfo(device, pci); }

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetEnforcedPowerLimit, (nvmlDevice_t device, unsigned* milliwatts)) {
  return Milliwatts(device, "power_w/limit", milliwatts);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetPowerManagementLimit, (nvmlDevice_t device, unsigned* milliwatts)) {
  return Milliwatts(device, "power_w/limit", milliwatts);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetPowerManagementDefaultLimit, (nvmlDevice_t device, unsigned* milliwatts)) {
  return Milliwatts(device, "power_w/default_limit", milliwatts);
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetEccMode, (nvmlDevice_t device, int* current, int* pending)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (current == nullptr || pending == nullptr) return kInvalidArgument;
  const nvsim::json* enabled = g->At("ecc/enabled");
  if (enabled == nullptr || !enabled->is_boolean()) return kNotSupported;  // GeForce: no ECC
  *current = enabled->get<bool>() ? 1 : 0;
  const nvsim::json* pending_mode = g->At("ecc/pending");
  *pending = (pending_mode != nullptr && pending_mode->is_boolean() ? pending_mode : enabled)->get<bool>() ? 1 : 0;
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetPersistenceMode, (nvmlDevice_t device, int* mode)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (mode == nullptr) return kInvalidArgument;
  *mode = g->Flag("persistence") ? 1 : 0;
  return kSuccess;
}
