// Child jobs "gpu-memory" (device memory bandwidth), "gpu-host-copy" (host↔device) and "gpu-p2p"
// (peer access and GPU→GPU copies). Each GPU one by one, then all at once where that means
// something.
#include <algorithm>

#include <fmt/format.h>

#include "core/units.h"
#include "gpu/bench/concurrent.h"
#include "gpu/bench/numa_placement.h"
#include "gpu/bench/sm_copy_bench.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/figure_json.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/job_bodies.h"
#include "gpu/jobs/gpu_runtime.h"

namespace labcheck::gpu {

namespace {

// cuDeviceCanAccessPeer takes CUdevice handles (from cuDeviceGet), not ordinals.
Result<bool> CanAccessPeer(const CudaDriver& driver, int from, int to) {
  const auto& api = driver.api();
  cuda::CUdevice a = 0, b = 0;
  Status status = driver.Check(api.cuDeviceGet(&a, from), "cuDeviceGet");
  if (status.ok()) status = driver.Check(api.cuDeviceGet(&b, to), "cuDeviceGet");
  int can = 0;
  if (status.ok()) status = driver.Check(api.cuDeviceCanAccessPeer(&can, a, b), "cuDeviceCanAccessPeer");
  if (!status.ok()) return status;
  return can != 0;
}

// `--copy-mib N` when given (tests, simulated machines), else `fallback`.
size_t CopyBytes(const JobArgs& args, size_t fallback) {
  const std::string mib = args.Option("copy-mib");
  return mib.empty() ? fallback : std::max<size_t>(1, std::stoull(mib)) * kMiB;
}

// A buffer far larger than any L2 (50–96 MiB on current GPUs): 1 GiB, less when memory is short.
// The current context is the GPU's.
size_t DeviceCopyBytes(const GpuRuntime& runtime, const JobArgs& args) {
  if (!args.Option("copy-mib").empty()) return CopyBytes(args, 0);
  size_t free_bytes = 0, total = 0;
  if (runtime.driver().api().cuMemGetInfo(&free_bytes, &total) != cuda::kSuccess) free_bytes = 0;
  size_t wanted = args.quick ? 512 * kMiB : 1024 * kMiB;
  return std::max<size_t>(256 * kMiB, std::min(wanted, free_bytes / 4) / kMiB * kMiB);
}

// Measures on one GPU; calls `ready` once set up and warmed up, right before the timed part.
using Measure = std::function<Result<CopyFigure>(const DeviceContext&, int, const ReadyFn& ready)>;

nlohmann::json FigureOrError(const Result<CopyFigure>& figure) {
  return figure.ok() ? CopyFigureJson(*figure) : nlohmann::json{{"error", figure.status().message()}};
}

// `measure` on each GPU in turn: one JSON figure (or {"error"}) per GPU, with its index.
nlohmann::json EachGpu(GpuRuntime& runtime, const Measure& measure) {
  nlohmann::json gpus = nlohmann::json::array();
  for (int i = 0; i < runtime.device_count(); ++i) {
    Result<std::shared_ptr<DeviceContext>> context = runtime.Context(i);
    gpus.push_back(FigureOrError(context.ok() ? measure(**context, i, {}) : Result<CopyFigure>(context.status())));
    gpus.back()["index"] = i;
  }
  return gpus;
}

// `measure` on all GPUs at once, the threads meeting after everyone's setup and warm-up so that
// the timed parts overlap: [{index, gbps} or {index, error}].
nlohmann::json AllAtOnce(GpuRuntime& runtime, const Measure& measure) {
  auto all = RunOnEveryDevice<CopyFigure>(runtime.device_count(), [&](int i, const std::function<void()>& ready) {
    Result<std::shared_ptr<DeviceContext>> context = runtime.Context(i);
    return context.ok() ? measure(**context, i, ready) : Result<CopyFigure>(context.status());
  });
  nlohmann::json together = nlohmann::json::array();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].ok()) together.push_back({{"index", i}, {"gbps", all[i]->gbps}});
    else together.push_back({{"index", i}, {"error", all[i].status().message()}});
  }
  return together;
}

// Runs `measure` on each GPU in turn, then (more than one GPU) on all at once.
nlohmann::json PerGpuAndTogether(GpuRuntime& runtime, const Measure& measure, nlohmann::json* together) {
  nlohmann::json gpus = EachGpu(runtime, measure);
  if (runtime.device_count() > 1 && together != nullptr) *together = AllAtOnce(runtime, measure);
  return gpus;
}

// {node, cpus, source, pinned, note}: where the GPU's host buffers were made.
nlohmann::json NumaPlacementJson(const NumaPlacement& p) {
  nlohmann::json j = {{"node", p.node ? nlohmann::json(*p.node) : nlohmann::json(nullptr)},
                      {"cpus", CpuListText(p.cpus)},
                      {"pinned", !p.cpus.empty()}};
  if (!p.source.empty()) j["source"] = p.source;
  if (!p.note.empty()) j["note"] = p.note;
  return j;
}

bool AllMeasured(const nlohmann::json& gpus, const char* key) {
  for (const nlohmann::json& g : gpus)
    if (!g.contains(key) || !g[key].contains("gbps")) return false;
  return !gpus.empty();
}

}  // namespace

Result<nlohmann::json> MemoryJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  nlohmann::json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  return MemoryJobOn(*runtime, args);
}

nlohmann::json MemoryJobOn(GpuRuntime& runtime, const JobArgs& args) {
  const CopyPlan plan{0, args.quick ? 2 : 3, args.quick ? 5 : 20};
  // One buffer size per GPU for all three figures, so that they compare.
  std::vector<size_t> bytes(static_cast<size_t>(runtime.device_count()), 0);
  auto sized = [&](int i) {
    CopyPlan p = plan;
    if (bytes[i] == 0) bytes[i] = DeviceCopyBytes(runtime, args);
    p.bytes = bytes[i];
    return p;
  };
  auto with_kernel = [&](SmKernel kernel) -> Measure {
    return [&, kernel](const DeviceContext& context, int i, const ReadyFn& ready) {
      return MeasureSmKernel(context, kernel, sized(i), runtime.nvml(), runtime.NvmlDevice(i), ready);
    };
  };
  const Measure driver_copy = [&](const DeviceContext& context, int i, const ReadyFn& ready) {
    return MeasureDeviceCopy(context, sized(i), runtime.nvml(), runtime.NvmlDevice(i), ready);
  };

  nlohmann::json out = OkEnvelope();
  // The driver's copy keeps the figure's old place ({index, gbps, …}); the SM kernels sit beside it.
  out["gpus"] = EachGpu(runtime, driver_copy);
  const std::optional<std::string> no_kernels = KernelsUnavailable(runtime.driver());
  const nlohmann::json sm_copy = no_kernels ? nlohmann::json() : EachGpu(runtime, with_kernel(SmKernel::Copy));
  const nlohmann::json sm_triad = no_kernels ? nlohmann::json() : EachGpu(runtime, with_kernel(SmKernel::Triad));
  for (size_t i = 0; i < out["gpus"].size(); ++i) {
    nlohmann::json& g = out["gpus"][i];
    g["sm_copy"] = no_kernels ? nlohmann::json{{"na", *no_kernels}} : sm_copy[i];
    g["sm_triad"] = no_kernels ? nlohmann::json{{"na", *no_kernels}} : sm_triad[i];
    g["sm_copy"].erase("index");
    g["sm_triad"].erase("index");
  }
  // All at once with the figure the card is judged by: the SM copy where it ran on every GPU.
  if (!args.quick && runtime.device_count() > 1) {
    const bool kernel = AllMeasured(out["gpus"], "sm_copy");
    out["concurrent"] = AllAtOnce(runtime, kernel ? with_kernel(SmKernel::Copy) : driver_copy);
    out["concurrent_method"] = kernel ? "sm_copy" : "driver_copy";
  }
  out["method"] = "buffers of up to 1 GiB (512 MiB with --quick, at most a quarter of free memory); driver_copy: "
                  "cuMemcpyDtoDAsync; sm_copy: "
                  "lab_check's PTX copy kernel (16-byte loads and stores, one full wave on every SM); sm_triad: "
                  "a = b + s*c on floats; bytes read + bytes written (copy 2x, triad 3x the buffer), CUDA events "
                  "per launch, median";
  out["method_ru"] = "буферы до 1 ГиБ (512 МиБ с --quick, не больше четверти свободной памяти); driver_copy: "
                     "cuMemcpyDtoDAsync; sm_copy: PTX-ядро копирования lab_check (16-байтовые чтения и записи, одна полная "
                     "волна на всех SM); sm_triad: a = b + s*c над float; прочитанные + записанные байты (копия 2×, triad "
                     "3× буфера), события CUDA на запуск, медиана";
  out["libraries"] = runtime.LibrariesJson();
  return out;
}

Result<nlohmann::json> HostCopyJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  nlohmann::json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  return HostCopyJobOn(*runtime, args);
}

nlohmann::json HostCopyJobOn(GpuRuntime& runtime, const JobArgs& args) {
  const CopyPlan plan{CopyBytes(args, 256 * kMiB), args.quick ? 1 : 3, args.quick ? 3 : 10};
  struct Variant {
    const char* key;
    HostMemory memory;
    CopyDirection direction;
  };
  std::vector<Variant> variants = {{"h2d_pinned", HostMemory::Pinned, CopyDirection::HostToDevice},
                                   {"d2h_pinned", HostMemory::Pinned, CopyDirection::DeviceToHost}};
  if (!args.quick) {
    variants.push_back({"h2d_pageable", HostMemory::Pageable, CopyDirection::HostToDevice});
    variants.push_back({"d2h_pageable", HostMemory::Pageable, CopyDirection::DeviceToHost});
  }
  nlohmann::json out = OkEnvelope();
  out["gpus"] = nlohmann::json::array();
  // Each GPU copies from a buffer on its own NUMA node, the thread pinned there (nvbandwidth's way).
  std::vector<NumaPlacement> placements;
  const std::string sys_root = SysRoot();
  for (int i = 0; i < runtime.device_count(); ++i) {
    placements.push_back(FindNumaPlacement(runtime.nvml(), runtime.NvmlDevice(i), runtime.PciBusId(i), sys_root));
    out["gpus"].push_back({{"index", i}, {"numa", NumaPlacementJson(placements.back())}});
  }
  HostBufferPool host_buffers(runtime.driver());
  for (const Variant& v : variants) {
    nlohmann::json together;
    const bool concurrent = !args.quick && v.memory == HostMemory::Pinned;
    nlohmann::json per_gpu = PerGpuAndTogether(runtime, [&](const DeviceContext& context, int i, const ReadyFn& ready) {
      return MeasureHostCopy(context, v.memory, v.direction, plan, host_buffers, placements[i], runtime.nvml(),
                             runtime.NvmlDevice(i), ready);
    }, concurrent ? &together : nullptr);
    for (size_t i = 0; i < per_gpu.size(); ++i) out["gpus"][i][v.key] = per_gpu[i];
    if (!together.is_null()) out["concurrent"][v.key] = together;
  }
  out["method"] = std::to_string(plan.bytes / kMiB) +
                  " MiB per copy, counted as bytes copied; cuMemcpy*Async on one stream from pinned (cuMemHostAlloc) "
                  "or pageable (malloc) memory on the GPU's NUMA node (the thread pinned to the GPU's CPUs while it "
                  "allocates and copies), CUDA events around each copy; median";
  out["method_ru"] = std::to_string(plan.bytes / kMiB) +
                     " МиБ за копию, считаются скопированные байты; cuMemcpy*Async в одном потоке из закреплённой "
                     "(cuMemHostAlloc) или обычной (malloc) памяти на NUMA-узле GPU (поток привязан к CPU этого GPU, пока "
                     "выделяет и копирует), события CUDA вокруг каждой копии; медиана";
  out["libraries"] = runtime.LibrariesJson();
  return out;
}

Result<nlohmann::json> PeerJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  nlohmann::json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  return PeerJobOn(*runtime, args);
}

nlohmann::json PeerJobOn(GpuRuntime& runtime, const JobArgs& args) {
  const int count = runtime.device_count();
  nlohmann::json out = OkEnvelope();
  out["count"] = count;
  std::vector<std::shared_ptr<DeviceContext>> contexts;
  for (int i = 0; i < count; ++i) {
    Result<std::shared_ptr<DeviceContext>> context = runtime.Context(i);
    if (!context.ok()) return FailEnvelope(T("не открылся контекст GPU", "could not open a GPU context"), {}, context.status().message());
    contexts.push_back(*context);
  }
  out["can_access"] = nlohmann::json::array();
  out["can_access_errors"] = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < count; ++j) {
      if (i == j) {
        row.push_back(nullptr);
        continue;
      }
      Result<bool> can = CanAccessPeer(runtime.driver(), i, j);
      row.push_back(can.ok() ? nlohmann::json(*can) : nlohmann::json(nullptr));  // a failed query: unknown, not "no"
      if (!can.ok()) out["can_access_errors"].push_back(fmt::format("GPU{}→GPU{}: {}", i, j, can.status().message()));
    }
    out["can_access"].push_back(row);
  }
  const nlohmann::json& access = out["can_access"];
  const CopyPlan plan{CopyBytes(args, args.quick ? 64 * kMiB : 256 * kMiB), args.quick ? 1 : 2, args.quick ? 3 : 10};
  nlohmann::json pairs = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j) {
      if (i == j) continue;
      nlohmann::json pair = {{"src", i}, {"dst", j}};
      const bool can = access[i][j].is_boolean() && access[i][j].get<bool>();
      for (bool peer : {false, true}) {
        if (peer && !can) continue;
        if (args.quick && can && !peer) continue;  // --quick: one figure per pair, the better path
        Result<CopyFigure> figure = MeasurePeerCopy(*contexts[i], *contexts[j], peer, plan);
        pair[peer ? "with_peer" : "without_peer"] =
            figure.ok() ? CopyFigureJson(*figure) : nlohmann::json{{"error", figure.status().message()}};
      }
      pairs.push_back(pair);
    }
  }
  out["pairs"] = pairs;
  out["method"] = "cuMemcpyPeerAsync, counted as bytes copied, CUDA events per copy, median; with_peer: "
                  "cuCtxEnablePeerAccess both ways first; without_peer: the driver stages through host memory";
  out["method_ru"] = "cuMemcpyPeerAsync, считаются скопированные байты, события CUDA на копию, медиана; with_peer: "
                     "сначала cuCtxEnablePeerAccess в обе стороны; without_peer: драйвер копирует через память хоста";
  out["libraries"] = runtime.LibrariesJson();
  return out;
}

}  // namespace labcheck::gpu
