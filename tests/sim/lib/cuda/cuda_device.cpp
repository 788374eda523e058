// libcuda.so.1 sim: initialisation, versions, error names and device queries.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/boot.h"
#include "core/kernel_module.h"
#include "cuda/cuda_internal.h"

namespace cusim {

namespace {

std::atomic<bool> initialised{false};

struct Named {
  CUresult code;
  const char* name;
  const char* text;
};

// Names and texts as cuda.h documents them (enum cudaError_enum). 35 is not among them: it is the
// runtime's cudaErrorInsufficientDriver (driver_types.h), which the driver cannot name either.
constexpr Named kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "API call is not supported in the installed CUDA driver"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const Named* Find(CUresult code) {
  for (const Named& n : kErrors)
    if (n.code == code) return &n;
  return nullptr;
}

int DriverVersionNumber() {
  const std::string text = nvsim::Profile().String("cuda_driver_version");
  int major = 0, minor = 0;
  std::sscanf(text.c_str(), "%d.%d", &major, &minor);
  return major * 1000 + minor * 10;
}

const nvsim::Gpu* GpuOf(CUdevice device) {
  if (!Initialised()) return nullptr;
  return nvsim::CudaGpu(device);
}

}  // namespace

bool Initialised() { return initialised.load(); }

int DeviceIndex(CUdevice device) {
  const nvsim::Gpu* g = GpuOf(device);
  return g != nullptr ? g->index : -1;
}

int MaxThreadsPerSm(const nvsim::Gpu& g) {
  // CUDA C Programming Guide, "Compute Capabilities", maximum number of resident threads per SM.
  const int cc = g.cc_major * 10 + g.cc_minor;
  const int by_cc = cc == 75 ? 1024 : (cc == 86 || cc == 87 || cc == 89 || cc >= 120) ? 1536 : 2048;
  return static_cast<int>(g.NumberOr("max_threads_per_sm", by_cc));
}

// The folder this copy of the library was loaded from: a test copies the sim's libcuda into a
// second folder to stand for a cuda-compat libcuda (cuda/compat_copy_folder).
std::string OwnFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&OwnFolder), &info) == 0 || info.dli_fname == nullptr) return "";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// A copy loaded from a folder whose name the profile gives is a forward-compatibility libcuda on
// cards that do not support it: CUDA's compatibility guide (docs.nvidia.com/deploy/cuda-compatibility,
// "Forward Compatibility") limits cuda-compat to data-center cards, and cuInit returns
// CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804) elsewhere.
bool IsRefusedCompatCopy(const nvsim::Machine& m) {
  const nvsim::json* folder = m.At("cuda/compat_copy_folder");
  if (folder == nullptr || !folder->is_string() || folder->get<std::string>().empty()) return false;
  const std::string own = OwnFolder();
  const std::string name = folder->get<std::string>();
  return own.size() >= name.size() && own.compare(own.size() - name.size(), name.size(), name) == 0;
}

}  // namespace cusim

using namespace cusim;

NVSIM_EXPORT(CUresult, cuInit, (unsigned flags)) {
  if (flags != 0) return kInvalidValue;
  const nvsim::Machine& m = nvsim::Profile();
  // A profile that does not load (an unknown key, bad JSON) fails loudly, its reason already on
  // stderr; no profile at all is a machine without GPUs.
  if (m.broken()) return kUnknown;
  if (!m.loaded) return kNoDevice;
  switch (nvsim::KernelModuleState(m)) {
    case nvsim::KernelModule::NotLoaded: return kNoDevice;  // /dev/nvidiactl cannot open without the module
    case nvsim::KernelModule::OtherVersion: return 803;     // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
    case nvsim::KernelModule::Matches: break;
  }
  const int error = static_cast<int>(m.Number("cuda/init_error"));
  if (error != 0 && nvsim::InitErrorHolds(m)) return error;
  if (IsRefusedCompatCopy(m)) return 804;  // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
  if (nvsim::VisibleDevices().empty()) return kNoDevice;  // the driver fails cuInit when it shows no GPU
  initialised = true;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuDriverGetVersion, (int* version)) {
  if (version == nullptr) return kInvalidValue;
  *version = DriverVersionNumber();
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuGetErrorName, (CUresult error, const char** name)) {
  if (name == nullptr) return kInvalidValue;
  const Named* n = Find(error);
  *name = n != nullptr ? n->name : nullptr;
  return n != nullptr ? kSuccess : kInvalidValue;
}

NVSIM_EXPORT(CUresult, cuGetErrorString, (CUresult error, const char** text)) {
  if (text == nullptr) return kInvalidValue;
  const Named* n = Find(error);
  *text = n != nullptr ? n->text : nullptr;
  return n != nullptr ? kSuccess : kInvalidValue;
}

NVSIM_EXPORT(CUresult, cuDeviceGetCount, (int* count)) {
  if (count == nullptr) return kInvalidValue;
  if (!Initialised()) return kNotInitialized;
  *count = static_cast<int>(nvsim::VisibleDevices().size());
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuDeviceGet, (CUdevice * device, int ordinal)) {
  if (device == nullptr) return kInvalidValue;
  if (!Initialised()) return kNotInitialized;
  if (nvsim::CudaGpu(ordinal) == nullptr) return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuDeviceGetName, (char* name, int length, CUdevice device)) {
  const nvsim::Gpu* g = GpuOf(device);
  if (g == nullptr) return Initialised() ? kInvalidDevice : kNotInitialized;
  if (name == nullptr || length <= 0) return kInvalidValue;
  std::snprintf(name, static_cast<size_t>(length), "%s", g->name.c_str());
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuDeviceTotalMem_v2, (size_t * bytes, CUdevice device)) {
  const nvsim::Gpu* g = GpuOf(device);
  if (g == nullptr) return Initialised() ? kInvalidDevice : kNotInitialized;
  if (bytes == nullptr) return kInvalidValue;
  *bytes = g->memory_bytes;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuDeviceGetAttribute, (int* value, int attribute, CUdevice device)) {
  const nvsim::Gpu* g = GpuOf(device);
  if (g == nullptr) return Initialised() ? kInvalidDevice : kNotInitialized;
  if (value == nullptr) return kInvalidValue;
  unsigned domain = 0, bus = 0, dev = 0, function = 0;
  std::sscanf(g->bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &function);
  switch (attribute) {  // CUdevice_attribute values from cuda.h
    case 13: *value = static_cast<int>(g->Number("clocks_mhz/sm_max") * 1000); break;     // CLOCK_RATE, kHz
    case 16: *value = static_cast<int>(g->Number("sm_count")); break;                        // MULTIPROCESSOR_COUNT
    case 33: *value = static_cast<int>(bus); break;                                               // PCI_BUS_ID
    case 34: *value = static_cast<int>(dev); break;                                               // PCI_DEVICE_ID
    case 36: *value = static_cast<int>(g->Number("clocks_mhz/memory_max") * 1000); break; // MEMORY_CLOCK_RATE
    case 37: *value = static_cast<int>(g->Number("bus_width_bits")); break;                 // GLOBAL_MEMORY_BUS_WIDTH
    case 38: *value = static_cast<int>(g->Number("l2_mib") * (1 << 20)); break;              // L2_CACHE_SIZE
    case 39: *value = MaxThreadsPerSm(*g); break;                                                 // MAX_THREADS_PER_MULTIPROCESSOR
    case 40: *value = static_cast<int>(g->Number("async_engines")); break;                    // ASYNC_ENGINE_COUNT
    case 50: *value = static_cast<int>(domain); break;                                            // PCI_DOMAIN_ID
    case 75: *value = g->cc_major; break;                                                         // COMPUTE_CAPABILITY_MAJOR
    case 76: *value = g->cc_minor; break;                                                         // COMPUTE_CAPABILITY_MINOR
    default: return kInvalidValue;
  }
  return kSuccess;
}

namespace {

CUresult Uuid(CUuuid* uuid, CUdevice device) {
  const nvsim::Gpu* g = GpuOf(device);
  if (g == nullptr) return Initialised() ? kInvalidDevice : kNotInitialized;
  if (uuid == nullptr) return kInvalidValue;
  // "GPU-xxxxxxxx-xxxx-…" in the profile, else made from the bus id.
  std::string hex;
  const nvsim::json* given = g->At("uuid");
  for (char c : given != nullptr && given->is_string() ? given->get<std::string>() : std::string())
    if (std::isxdigit(static_cast<unsigned char>(c))) hex += c;
  for (int i = 0; i < 16; ++i) {
    unsigned byte = 0;
    if (hex.size() >= 32) std::sscanf(hex.c_str() + 2 * i, "%2x", &byte);
    else byte = static_cast<unsigned>((0x5A + 31 * i + 7 * g->index) & 0xFF);
    uuid->bytes[i] = static_cast<char>(byte);
  }
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(CUresult, cuDeviceGetUuid, (CUuuid * uuid, CUdevice device)) { return Uuid(uuid, device); }
NVSIM_EXPORT(CUresult, cuDeviceGetUuid_v2, (CUuuid * uuid, CUdevice device)) { return Uuid(uuid, device); }

NVSIM_EXPORT(CUresult, cuDeviceGetPCIBusId, (char* bus_id, int length, CUdevice device)) {
  const nvsim::Gpu* g = GpuOf(device);
  if (g == nullptr) return Initialised() ? kInvalidDevice : kNotInitialized;
  if (bus_id == nullptr || length <= 0) return kInvalidValue;
  std::string upper = g->bus_id;  // the driver writes hex digits in upper case: "0000:3B:00.0"
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::snprintf(bus_id, static_cast<size_t>(length), "%s", upper.c_str());
  return kSuccess;
}

// Not an NVIDIA symbol: how lab_check tells the simulated machine from a real one, so that no
// report passes the profile's figures off as a real card's (CudaDriver::SimulatedMachine).
NVSIM_EXPORT(const char*, labcheck_sim_machine, ()) {
  static const std::string text =
      nvsim::Profile().String("description") + " (" +
      nvsim::Profile().path.substr(nvsim::Profile().path.rfind('/') + 1) + ")";
  return text.c_str();
}
