// Child job "gpu-health": NVML's health facts per GPU (health/health_facts.h), then a short load
// window on every GPU at once (pinned host→device copies, timed with CUDA events) during which it
// watches for XID events and samples the PCIe link, and after which it reads the replay counter
// again; last, the kernel log's XID lines since boot where /dev/kmsg (or --kernel-log FILE) is readable.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>

#include "gpu/bench/concurrent.h"
#include "gpu/bench/device_resources.h"
#include "gpu/bench/nvml_sampler.h"
#include "gpu/health/health_facts.h"
#include "gpu/health/driver_messages.h"
#include "gpu/health/kernel_log.h"
#include "gpu/health/sxid.h"
#include "gpu/health/xid_watch.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/job_bodies.h"
#include "gpu/nvidia/nvml_health_library.h"

namespace labcheck::gpu {

namespace {

using nlohmann::json;

constexpr size_t kLoadBytes = 64u << 20;

struct Window {
  NvmlSamples samples;
  std::optional<unsigned> replays_after;  // read while the link is still busy
};

// Host→device copies for `target_ms` of wall-clock time, the link sampled meanwhile. The window
// is a span of load, not a figure: it is counted on the host's clock, so it lasts as long on a
// simulated machine (whose copies cost real memmoves) as on a card. A copy is awaited before the
// next, so the link never idles for longer than one call's overhead.
Result<Window> LoadWindow(GpuRuntime& runtime, const nvml::NvmlHealthApi& api, int ordinal, double target_ms,
                          const std::function<void()>& ready) {
  const CudaDriver& driver = runtime.driver();
  Result<std::shared_ptr<DeviceContext>> context = runtime.Context(ordinal);  // made current
  if (!context.ok()) return context.status();
  Status status = Status::Ok();
  Result<DeviceBuffer> device = DeviceBuffer::Allocate(driver, kLoadBytes);
  if (!device.ok()) return device.status();
  Result<PinnedBuffer> host = PinnedBuffer::Allocate(driver, kLoadBytes);
  if (!host.ok()) return host.status();
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();
  ready();
  NvmlSampler sampler(runtime.nvml(), runtime.NvmlDevice(ordinal), 10);
  const auto started = std::chrono::steady_clock::now();
  const auto end = started + std::chrono::duration<double, std::milli>(target_ms);
  for (int i = 0; i < 1000 && (i == 0 || std::chrono::steady_clock::now() < end); ++i) {
    status = driver.Check(driver.api().cuMemcpyHtoDAsync(device->get(), host->get(), kLoadBytes, stream->get()),
                          "cuMemcpyHtoDAsync");
    if (!status.ok()) return status;
    // Samples count only while copies run (bench/nvml_sampler.h); the first is taken right now.
    sampler.SetBusy(true);
    if (i == 0) sampler.SampleNow();
    status = stream->Synchronize();
    if (!status.ok()) return status;
  }
  Window window;
  unsigned replays = 0;
  const nvml::nvmlDevice_t nvml_device = runtime.NvmlDevice(ordinal);
  if (nvml_device != nullptr && api.nvmlDeviceGetPcieReplayCounter != nullptr &&
      api.nvmlDeviceGetPcieReplayCounter(nvml_device, &replays) == nvml::kSuccess)
    window.replays_after = replays;
  sampler.SetBusy(false);
  window.samples = sampler.Stop();
  return window;
}

// The kernel log's XIDs since boot, each with what came after it (health/kernel_log.h); node-check's
// --kernel-log names a file holding `dmesg`'s or `journalctl -k`'s text instead of /dev/kmsg.
json KernelXidsJson(const Result<std::vector<std::string>>& log) {
  if (!log.ok()) return {{"na", log.status().message()}};
  json xids = json::array();
  for (const health::KernelXid& x : health::KernelXidsOf(*log)) {
    json one = {{"pci", x.pci}, {"xid", x.xid}, {"line", x.line}};
    if (x.form != "xid") one["form"] = x.form;
    for (const health::XidEvidence& e : x.also) one["also"].push_back({{"form", e.form}, {"line", e.line}});
    for (const auto& [key, value] : {std::pair{"driver_version", &x.driver_version}, {"serial", &x.serial}, {"uuid", &x.uuid}})
      if (!value->empty()) one[key] = *value;
    if (x.time_s) one["time_s"] = *x.time_s;
    if (!x.cleared_by.empty()) one["cleared_by"] = x.cleared_by;
    if (x.cleared_at_s) one["cleared_at_s"] = *x.cleared_at_s;
    xids.push_back(one);
  }
  return xids;
}

// The driver's other messages a gate acts on (health/driver_messages.h: a card it could not
// initialise, NVLink peers it could not discover), from the same log.
json DriverMessagesJson(const Result<std::vector<std::string>>& log) {
  if (!log.ok()) return {{"na", log.status().message()}};
  json messages = json::array();
  for (const health::DriverMessage& m : health::DriverMessagesOf(*log)) {
    json one = {{"kind", m.kind}, {"line", m.line}};
    if (!m.pci.empty()) one["pci"] = m.pci;
    if (!m.detail.empty()) one["status"] = m.detail;
    if (!m.also.empty()) one["also"] = m.also;
    if (m.time_s) one["time_s"] = *m.time_s;
    messages.push_back(one);
  }
  return messages;
}

// The NVSwitches' SXid lines since boot (health/sxid.h), from the same log.
json KernelSxidsJson(const Result<std::vector<std::string>>& log) {
  if (!log.ok()) return {{"na", log.status().message()}};
  json sxids = json::array();
  for (const health::KernelSxid& s : health::KernelSxidsOf(*log))
    sxids.push_back({{"nvswitch", s.nvswitch}, {"pci", s.pci}, {"sxid", s.sxid}, {"fatal", s.fatal}, {"text", s.text}});
  return sxids;
}

}  // namespace

Result<json> HealthJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  return HealthJobOn(*runtime, args);
}

json HealthJobOn(GpuRuntime& open_runtime, const JobArgs& args) {
  GpuRuntime* runtime = &open_runtime;
  if (runtime->nvml() == nullptr) {
    json skip = SkipEnvelope(T("NVML (libnvidia-ml.so.1) не загрузилась: состояние карт не прочитать",
                               "NVML (libnvidia-ml.so.1) did not load: the cards' health cannot be read"),
                             T("переустановите драйвер NVIDIA: NVML входит в него", "reinstall the NVIDIA driver: NVML is part of it"),
                             runtime->nvml_error());
    skip["libraries"] = runtime->LibrariesJson();
    return skip;
  }
  Result<std::unique_ptr<NvmlHealth>> bound = NvmlHealth::Bind(*runtime->nvml());
  static const nvml::NvmlHealthApi kNone{};
  const nvml::NvmlHealthApi& api = bound.ok() ? (*bound)->api() : kNone;
  const health::NvmlTables tables{&runtime->nvml()->api(), &api};

  const int count = runtime->device_count();
  const char* host_pid_ns = std::getenv("LABCHECK_TEST_HOST_PID_NS");  // test seam, pid_namespace.h
  const health::PidNamespace pids =
      health::ReadPidNamespace("/proc", host_pid_ns != nullptr ? std::optional<std::string>(host_pid_ns) : std::nullopt);
  std::vector<nvml::nvmlDevice_t> devices;
  json gpus = json::array();
  for (int i = 0; i < count; ++i) {
    devices.push_back(runtime->NvmlDevice(i));
    json gpu = {{"index", i}, {"pci_bus_id", runtime->PciBusId(i)}};
    char name[nvml::kDeviceNameBufferSize] = {};
    if (devices.back() != nullptr && runtime->nvml()->api().nvmlDeviceGetName != nullptr &&
        runtime->nvml()->api().nvmlDeviceGetName(devices.back(), name, sizeof name) == nvml::kSuccess)
      gpu["name"] = name;
    gpu["facts"] = devices.back() != nullptr
                       ? health::ReadIdleFacts(tables, devices.back(), static_cast<unsigned>(getpid()), pids)
                       : json::object();
    gpus.push_back(gpu);
  }

  health::XidWatch xids(api, devices);
  const double window_ms = args.quick ? 500 : 1500;
  std::vector<Result<Window>> load = RunOnEveryDevice<Window>(
      count, [&](int i, const std::function<void()>& ready) { return LoadWindow(*runtime, api, i, window_ms, ready); });
  std::vector<json> seen = xids.Stop();

  for (int i = 0; i < count; ++i) {
    json& facts = gpus[i]["facts"];
    if (devices[i] == nullptr) {
      gpus[i]["error"] = "NVML does not know this GPU (no handle for its PCI bus id)";
      continue;
    }
    facts["xid_during_run"] = seen[i];
    if (!load[i].ok()) {
      facts["pcie_gen_under_load"] = {{"na", "the load window failed: " + load[i].status().message()}};
    } else {
      const NvmlSamples& s = load[i]->samples;
      facts["pcie_gen_under_load"] = s.pcie_gen_under_load ? json(*s.pcie_gen_under_load) : json{{"na", "not sampled"}};
      facts["pcie_width_under_load"] = s.pcie_width_under_load ? json(*s.pcie_width_under_load) : json{{"na", "not sampled"}};
    }
    if (facts["pcie_replay_count"].is_number() && load[i].ok() && load[i]->replays_after) {
      const unsigned before = facts["pcie_replay_count"].get<unsigned>(), after = *load[i]->replays_after;
      facts["pcie_replay_growth"] = after >= before ? after - before : 0;
    }
  }

  json out = OkEnvelope();
  out["method"] = "NVML queries at idle; then pinned host-to-device copies on all GPUs at once for " +
                  std::to_string(static_cast<int>(window_ms)) +
                  " ms of wall-clock time while NVML's XID event set is watched and the PCIe link sampled; the replay "
                  "counter read before and after";
  out["gpus"] = gpus;
  const Result<std::vector<std::string>> log = health::ReadKernelLogLines(args.Option("kernel-log", "/dev/kmsg"));
  out["xid_kernel_log"] = KernelXidsJson(log);
  out["sxid_kernel_log"] = KernelSxidsJson(log);
  out["driver_kernel_log"] = DriverMessagesJson(log);
  if (!bound.ok()) out["nvml_health_error"] = bound.status().message();
  out["libraries"] = runtime->LibrariesJson();
  return out;
}

}  // namespace labcheck::gpu
