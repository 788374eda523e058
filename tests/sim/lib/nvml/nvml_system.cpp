// libnvidia-ml.so.1 sim: init/shutdown, errors, driver version, enumeration and handles.
// NVML enumerates GPUs by PCI bus id and ignores CUDA_VISIBLE_DEVICES.
#include <atomic>
#include <cstdio>
#include <cstring>

#include "core/heat.h"
#include "core/kernel_module.h"
#include "nvml/nvml_internal.h"

namespace nvmlsim {

namespace {

std::atomic<int> init_count{0};

struct Named {
  nvmlReturn_t code;
  const char* text;
};

constexpr Named kErrors[] = {
    {0, "Success"}, {1, "Uninitialized"}, {2, "Invalid Argument"}, {3, "Not Supported"},
    {4, "Insufficient Permissions"}, {5, "Already Initialized"}, {6, "Not Found"}, {7, "Insufficient Size"},
    {9, "Driver Not Loaded"}, {10, "Timeout"}, {12, "NVML Shared Library Not Found"}, {13, "Function Not Found"},
    {15, "GPU is lost"}, {18, "RM has detected an NVML/RM version mismatch"}, {25, "Argument version mismatch"},
    {999, "Unknown Error"},
};

}  // namespace

bool Initialised() { return init_count.load() > 0; }

const nvsim::Gpu* Check(nvmlDevice_t device) {
  if (!Initialised() || device == nullptr) return nullptr;
  for (const nvsim::Gpu& g : nvsim::Profile().gpus)
    if (&g == device) return &g;
  return nullptr;
}

nvmlReturn_t CopyString(const std::string& text, char* buffer, unsigned length) {
  if (buffer == nullptr) return kInvalidArgument;
  if (text.size() + 1 > length) return kInsufficientSize;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return kSuccess;
}

const char* LoadState(const nvsim::Gpu& g) {
  if (!nvsim::UnderLoad(g.index)) return "idle";
  return nvsim::Hot(g) ? "hot" : "load";  // core/heat.h: the profile then gives "…/hot" values
}

void FillPciInfo(const std::string& bus_id, unsigned pci_device_id, nvmlPciInfo_t* pci) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  std::sscanf(bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function);
  std::memset(pci, 0, sizeof *pci);
  pci->domain = domain;
  pci->bus = bus;
  pci->device = device;
  pci->pciDeviceId = pci_device_id;
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", domain, bus, device);
  std::snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", domain, bus, device);
}

}  // namespace nvmlsim

using namespace nvmlsim;

namespace {

nvmlReturn_t Init() {
  const nvsim::Machine& m = nvsim::Profile();
  if (m.broken()) return kUnknown;  // the reason is already on stderr (core/profile.h)
  if (!m.loaded) return 9;          // no profile: NVML_ERROR_DRIVER_NOT_LOADED
  switch (nvsim::KernelModuleState(m)) {
    case nvsim::KernelModule::NotLoaded: return 9;      // NVML_ERROR_DRIVER_NOT_LOADED
    case nvsim::KernelModule::OtherVersion: return 18;  // NVML_ERROR_LIB_RM_VERSION_MISMATCH
    case nvsim::KernelModule::Matches: break;
  }
  const int error = static_cast<int>(m.Number("nvml/init_error"));
  if (error != 0) return error;
  ++init_count;
  return kSuccess;
}

const nvsim::Gpu* ByNvmlIndex(unsigned index) {
  for (const nvsim::Gpu& g : nvsim::Profile().gpus)
    if (g.nvml_index == static_cast<int>(index)) return &g;
  return nullptr;
}

nvmlReturn_t Count(unsigned* count) {
  if (!Initialised()) return kUninitialized;
  if (count == nullptr) return kInvalidArgument;
  *count = static_cast<unsigned>(nvsim::Profile().gpus.size());
  return kSuccess;
}

nvmlReturn_t HandleByIndex(unsigned index, nvmlDevice_t* device) {
  if (!Initialised()) return kUninitialized;
  if (device == nullptr) return kInvalidArgument;
  const nvsim::Gpu* g = ByNvmlIndex(index);
  if (g == nullptr) return kInvalidArgument;
  *device = g;
  return kSuccess;
}

nvmlReturn_t HandleByBusId(const char* bus_id, nvmlDevice_t* device) {
  if (!Initialised()) return kUninitialized;
  if (device == nullptr || bus_id == nullptr) return kInvalidArgument;
  const std::string wanted = nvsim::CanonicalBusId(bus_id);
  for (const nvsim::Gpu& g : nvsim::Profile().gpus) {
    if (g.bus_id == wanted) {
      *device = &g;
      return kSuccess;
    }
  }
  return kNotFound;
}

}  // namespace

NVSIM_EXPORT(nvmlReturn_t, nvmlInit_v2, ()) { return Init(); }
NVSIM_EXPORT(nvmlReturn_t, nvmlInit, ()) { return Init(); }

NVSIM_EXPORT(nvmlReturn_t, nvmlShutdown, ()) {
  if (!Initialised()) return kUninitialized;
  --init_count;
  return kSuccess;
}

NVSIM_EXPORT(const char*, nvmlErrorString, (nvmlReturn_t result)) {
  for (const Named& n : kErrors)
    if (n.code == result) return n.text;
  return "Unknown Error";
}

NVSIM_EXPORT(nvmlReturn_t, nvmlSystemGetDriverVersion, (char* version, unsigned length)) {
  if (!Initialised()) return kUninitialized;
  return CopyString(nvsim::Profile().String("driver_version"), version, length);
}

NVSIM_EXPORT(nvmlReturn_t, nvmlSystemGetCudaDriverVersion_v2, (int* version)) {
  if (version == nullptr) return kInvalidArgument;
  int major = 0, minor = 0;
  std::sscanf(nvsim::Profile().String("cuda_driver_version").c_str(), "%d.%d", &major, &minor);
  *version = major * 1000 + minor * 10;
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetCount_v2, (unsigned* count)) { return Count(count); }
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetCount, (unsigned* count)) { return Count(count); }
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetHandleByIndex_v2, (unsigned index, nvmlDevice_t* device)) {
  return HandleByIndex(index, device);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetHandleByIndex, (unsigned index, nvmlDevice_t* device)) {
  return HandleByIndex(index, device);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetHandleByPciBusId_v2, (const char* bus_id, nvmlDevice_t* device)) {
  return HandleByBusId(bus_id, device);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetHandleByPciBusId, (const char* bus_id, nvmlDevice_t* device)) {
  return HandleByBusId(bus_id, device);
}
