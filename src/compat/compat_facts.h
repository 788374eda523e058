// The facts env.compat judges, as plain values: the Python side from the env_compat.py probe, the
// driver side from gpu.inventory's data. Tests build them by hand (no Python, no GPU needed).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/text.h"

namespace labcheck::compat {

struct PackageFacts {
  std::string version;
  std::vector<std::string> requires_dist;  // requirements on torch/triton, markers already applied
};

struct PythonSide {
  std::optional<std::string> torch_version;  // "2.7.1+cu128"
  std::optional<std::string> torch_cuda;     // "12.8"; empty for CPU-only builds
  std::optional<std::vector<std::string>> arch_list;  // "sm_80", "compute_90"…
  std::optional<std::string> torch_nccl;     // "2.26.2"
  std::string torch_import_error;
  std::map<std::string, std::optional<PackageFacts>> packages;  // asked names; nullopt = not installed
  std::map<std::string, std::string> import_errors;             // extension → error (only failures)
};

struct GpuFacts {
  int index = 0;
  std::string name;
  int cc = 0;  // major*10 + minor
};

struct DriverSide {
  std::string driver_version;  // "570.124.06"
  std::string driver_cuda;     // "12.8": the highest CUDA this driver runs (cuDriverGetVersion)
  std::vector<GpuFacts> gpus;
  std::optional<std::string> system_nccl;  // a libnccl found outside Python's site-packages
  std::string system_nccl_path;
  std::string system_nccl_origin;  // "LD_LIBRARY_PATH", "loader cache", "CUDA toolkit"
};

struct CompatFacts {
  std::optional<PythonSide> python;  // nullopt: no Python or the probe failed
  std::string python_problem;        // why python is nullopt
  std::optional<DriverSide> driver;  // nullopt: no GPU/driver (gpu.inventory did not pass)
  // The report's facts (src/facts/): the cards the driver has (NVML; CUDA_VISIBLE_DEVICES does not
  // hide them from it), why CUDA sees none of them when it does not, and why there is no torch.
  int driver_gpu_count = 0;
  Text no_cuda_card;   // empty: CUDA sees a card, or there is none to see
  Text torch_missing;  // empty: torch is installed (or nothing is known)
};

// The packages the probe is asked about.
const std::vector<std::string>& CompatPackages();

Result<PythonSide> ParseCompatProbe(const nlohmann::json& result);
// From gpu.inventory's data: {gpus: [{index, name, cc_major, cc_minor}], driver_version,
// cuda_driver_version, libraries: [{name, path, origin, version}]}.
DriverSide DriverFromInventory(const nlohmann::json& data);

}  // namespace labcheck::compat
