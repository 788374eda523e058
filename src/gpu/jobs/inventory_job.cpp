// Child job "gpu-inventory": every GPU as CUDA and NVML see it (matched by PCI bus id), the
// libraries in use and the topology matrix. Reads only; allocates nothing on the GPUs.
#include <optional>

#include <fmt/format.h>

#include "core/units.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/job_bodies.h"
#include "gpu/jobs/nvml_gpu_list.h"
#include "gpu/nvidia/driver_state_probe.h"
#include "gpu/nvidia/nvidia_search_paths.h"
#include "gpu/nvidia/nccl_library.h"
#include "gpu/topology.h"
#include "gpu/topology_reader.h"

namespace labcheck::gpu {

namespace {

template <typename T>
nlohmann::json Maybe(bool ok, T value) {
  return ok ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::json DescribeGpu(GpuRuntime& runtime, int ordinal) {
  const auto& api = runtime.driver().api();
  cuda::CUdevice device = 0;
  api.cuDeviceGet(&device, ordinal);
  char name[256] = {};
  api.cuDeviceGetName(name, sizeof name, device);
  size_t memory = 0;
  api.cuDeviceTotalMem(&memory, device);
  int sm_count = 0;
  api.cuDeviceGetAttribute(&sm_count, cuda::kAttrMultiprocessorCount, device);
  const int cc = runtime.ComputeCapability(ordinal);
  nlohmann::json gpu = {
      {"index", ordinal}, {"name", name}, {"pci_bus_id", runtime.PciBusId(ordinal)},
      {"memory_total_gib", static_cast<double>(memory) / kBytesPerGiB},
      {"cc_major", cc / 10}, {"cc_minor", cc % 10}, {"sm_count", sm_count},
      {"bf16", cc >= 80}, {"fp8", cc >= 89}};
  gpu["uuid"] = nullptr;
  if (api.cuDeviceGetUuid != nullptr) {
    cuda::CUuuid uuid{};
    if (api.cuDeviceGetUuid(&uuid, device) == cuda::kSuccess) {
      std::string text = "GPU-";
      for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
        text += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
      }
      gpu["uuid"] = text;
    }
  }
  for (const char* key : {"pcie_gen_current", "pcie_width_current", "pcie_gen_max", "pcie_width_max", "power_limit_w",
                          "temperature_c", "ecc", "persistence", "serial"})
    gpu[key] = nullptr;
  const Nvml* nvml = runtime.nvml();
  nvml::nvmlDevice_t handle = runtime.NvmlDevice(ordinal);
  if (nvml == nullptr || handle == nullptr) return gpu;
  const nvml::NvmlApi& n = nvml->api();
  unsigned value = 0;
  auto read = [&](auto fn, const char* key) {
    if (fn != nullptr && fn(handle, &value) == nvml::kSuccess) gpu[key] = value;
  };
  read(n.nvmlDeviceGetCurrPcieLinkGeneration, "pcie_gen_current");
  read(n.nvmlDeviceGetCurrPcieLinkWidth, "pcie_width_current");
  read(n.nvmlDeviceGetMaxPcieLinkGeneration, "pcie_gen_max");
  read(n.nvmlDeviceGetMaxPcieLinkWidth, "pcie_width_max");
  char serial[nvml::kDeviceSerialBufferSize] = {};
  if (n.nvmlDeviceGetSerial != nullptr && n.nvmlDeviceGetSerial(handle, serial, sizeof serial) == nvml::kSuccess && serial[0] != 0)
    gpu["serial"] = std::string(serial);
  if (n.nvmlDeviceGetEnforcedPowerLimit != nullptr && n.nvmlDeviceGetEnforcedPowerLimit(handle, &value) == nvml::kSuccess)
    gpu["power_limit_w"] = value / 1000.0;
  if (std::optional<unsigned> celsius = ReadGpuTemperature(n, handle)) gpu["temperature_c"] = *celsius;
  nvml::nvmlEnableState_t current = 0, pending = 0;
  if (n.nvmlDeviceGetEccMode != nullptr && n.nvmlDeviceGetEccMode(handle, &current, &pending) == nvml::kSuccess)
    gpu["ecc"] = current == nvml::kFeatureEnabled;
  if (n.nvmlDeviceGetPersistenceMode != nullptr && n.nvmlDeviceGetPersistenceMode(handle, &current) == nvml::kSuccess)
    gpu["persistence"] = current == nvml::kFeatureEnabled;
  return gpu;
}

nlohmann::json Topology(GpuRuntime& runtime) {
  const int count = runtime.device_count();
  std::vector<std::string> bus_ids;
  std::vector<nvml::nvmlDevice_t> devices;
  for (int i = 0; i < count; ++i) {
    bus_ids.push_back(runtime.PciBusId(i));
    devices.push_back(runtime.NvmlDevice(i));
  }
  const Nvml* nvml = runtime.nvml();
  TopologyInput input;
  if (nvml != nullptr) {
    input = ReadNvmlTopology(nvml->api(), devices, bus_ids);
  } else {
    input.count = count;
  }
  nlohmann::json labels = nlohmann::json::array();
  for (int i = 0; i < count; ++i) labels.push_back("GPU" + std::to_string(i));
  return {{"labels", labels}, {"matrix", TopologyMatrix(input)}, {"nvlink", AnyNvLink(input)},
          {"source", nvml != nullptr ? "nvml" : "unavailable"}};
}

// "2.28.9 (CUDA 13.0)" from the file alone, for an NCCL never opened.
std::string BuildText(const std::optional<NcclBuild>& build) {
  if (!build) return "";
  const std::string cuda = build->cuda_version > 0 ? "CUDA " + CudaVersionText(build->cuda_version) : "";
  if (build->version.empty()) return cuda;
  return cuda.empty() ? build->version : fmt::format("{} ({})", build->version, cuda);
}

// The NCCL in use, the files refused before it and the ones further down the order: which NCCL
// an all-reduce gets is a frequent question when torch, the toolkit and the system each bring one.
std::vector<LibraryRecord> NcclRows(const Nccl& nccl) {
  std::vector<LibraryRecord> rows = SkippedRecords("NCCL", nccl.skipped());
  for (LibraryRecord& row : rows) row.version = BuildText(ReadNcclBuild(row.path));
  LibraryRecord used{"NCCL", nccl.file(), OriginName(nccl.origin()), nccl.VersionText()};
  if (nccl.built_for_cuda() > 0) {
    const std::string cuda = CudaVersionText(nccl.built_for_cuda());
    used.note = T("собрана для CUDA " + cuda, "built for CUDA " + cuda);
  }
  rows.push_back(used);
  for (const LibraryCandidate& other : nccl.alternatives())
    rows.push_back({"NCCL", other.path, OriginName(other.origin), BuildText(ReadNcclBuild(other.path)), "alternative",
                    T("не используется: ниже в порядке поиска", "not used: later in the search order")});
  return rows;
}

}  // namespace

Result<nlohmann::json> InventoryJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  nlohmann::json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) {
    // CUDA found no card or failed; NVML may still list the driver's (the variable hides them
    // from CUDA only; the fabric manager's absence stops CUDA, not NVML).
    envelope.update(NvmlView(NvidiaSearchPaths(args.site_packages)));
    return envelope;
  }
  return InventoryJobOn(*runtime, args);
}

nlohmann::json InventoryJobOn(GpuRuntime& runtime, const JobArgs&) {
  nlohmann::json out = OkEnvelope();
  out["gpus"] = nlohmann::json::array();
  for (int i = 0; i < runtime.device_count(); ++i) out["gpus"].push_back(DescribeGpu(runtime, i));
  out["cuda_driver_version"] = runtime.driver().VersionText();
  const std::string simulated = runtime.driver().SimulatedMachine();
  out["simulated"] = !simulated.empty();
  if (!simulated.empty()) out["simulated_machine"] = simulated;
  out["driver_version"] = runtime.nvml() != nullptr ? nlohmann::json(runtime.nvml()->DriverVersion()) : nlohmann::json(nullptr);
  out["nvml_error"] = runtime.nvml_error();
  out["nvml_gpus"] = runtime.nvml() != nullptr ? NvmlGpuList(*runtime.nvml()) : nlohmann::json(nullptr);
  out["driver_state"] = DriverStateJson(RunningDriverState(runtime.driver(), runtime.nvml()));
  out["topology"] = Topology(runtime);
  Result<const CublasLt*> lt = runtime.cublaslt();
  out["cublaslt_error"] = lt.ok() ? "" : lt.status().message();
  if (lt.ok())
    for (const CublasLtPassedOver& p : (*lt)->passed_over())
      out["cublaslt_passed_over"].push_back({{"file", p.file}, {"library_major", p.library_major},
                                             {"compute_capability", p.compute_capability},
                                             {"min_compute_capability", p.min_compute_capability}});
  Result<std::unique_ptr<Nccl>> nccl = Nccl::Load(runtime.paths());
  out["nccl_version"] = nullptr;
  if (nccl.ok()) {
    out["nccl_version"] = (*nccl)->VersionText();
    out["nccl_cuda_version"] = (*nccl)->built_for_cuda() > 0 ? nlohmann::json(CudaVersionText((*nccl)->built_for_cuda()))
                                                             : nlohmann::json(nullptr);
    for (const LibraryRecord& row : NcclRows(**nccl)) runtime.Record(row);
  } else {
    out["nccl_error"] = nccl.status().message();
  }
  out["libraries"] = runtime.LibrariesJson();
  return out;
}

}  // namespace labcheck::gpu
