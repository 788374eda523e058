#include "report_fixtures.h"

#include <algorithm>

#include <fmt/format.h>

namespace labcheck::expect::testing {

CheckResult& AddCheck(Report& report, const std::string& id, Outcome outcome, const std::string& reason) {
  for (auto& c : report.checks) {
    if (c.id == id) {
      c.outcome = outcome;
      if (!reason.empty()) c.reason = Text(reason);
      return c;
    }
  }
  CheckResult c;
  c.id = id;
  c.section = id.substr(0, id.find('.'));
  c.outcome = outcome;
  c.reason = Text(reason);
  report.checks.push_back(std::move(c));
  return report.checks.back();
}

void Measure(Report& report, const std::string& check_id, const std::string& key, double value, const std::string& unit) {
  RemoveMeasurement(report, key);
  CheckResult* check = nullptr;
  for (auto& c : report.checks) {
    if (c.id == check_id) check = &c;
  }
  if (check == nullptr) check = &AddCheck(report, check_id, Outcome::Pass);
  Measurement m;
  m.key = key;
  m.label = Text(key);
  m.value = value;
  m.unit = unit;
  check->Add(m);
}

void RemoveMeasurement(Report& report, const std::string& key) {
  for (auto& c : report.checks) {
    auto& ms = c.measurements;
    ms.erase(std::remove_if(ms.begin(), ms.end(), [&](const Measurement& m) { return m.key == key; }), ms.end());
  }
}

nlohmann::json& Inventory(Report& report) { return AddCheck(report, "gpu.inventory", Outcome::Pass).data; }

nlohmann::json InventoryGpu(int index, const std::string& name, double memory_gib, int cc_major, int cc_minor,
                            int sm_count, int pcie_gen, int pcie_width) {
  return {{"index", index}, {"name", name}, {"memory_total_gib", memory_gib}, {"cc_major", cc_major},
          {"cc_minor", cc_minor}, {"sm_count", sm_count}, {"pcie_gen_max", pcie_gen}, {"pcie_width_max", pcie_width},
          {"power_limit_w", 320}};
}

namespace {

void Environment(Report& r, nlohmann::json torch_cuda) {
  CheckResult& sys = AddCheck(r, "env.system", Outcome::Pass);
  sys.data = {{"os", "Ubuntu 24.04 LTS"}, {"kernel", "6.8.0"}, {"cpu", {{"model", "AMD EPYC 7H43"}, {"threads", 96}}},
              {"memory", {{"total_gib", 125.7}}}};
  CheckResult& py = AddCheck(r, "env.python", Outcome::Pass);
  py.data = {{"python", {{"path", "~/venvs/ai/bin/python"}, {"version", "3.12.3"}}},
             {"packages", {{"torch", "2.5.1"}, {"transformers", "4.46.0"}}},
             {"torch_cuda", std::move(torch_cuda)}};
  Measure(r, "cpu.memory_bandwidth", "cpu.mem_copy_gbps", 95.3, "GB/s");
  Measure(r, "cpu.sgemm", "cpu.sgemm_gflops", 2100, "GFLOPS");
}

void SmokePasses(Report& r) {
  for (const char* id : {"smoke.ddp", "smoke.fsdp2", "smoke.hf_llama", "smoke.lora", "smoke.qlora",
                         "smoke.flash_attention", "smoke.triton", "smoke.torch_compile", "smoke.vllm", "smoke.unsloth"}) {
    AddCheck(r, id, Outcome::Pass);
  }
}

}  // namespace

Report CpuOnlyReport() {
  Report r;
  r.meta.tool_version = "0.1.0";
  r.meta.started_at = "2026-12-02T14:00:00Z";
  Environment(r, nlohmann::json(nullptr));
  AddCheck(r, "gpu.inventory", Outcome::Skip, "нет GPU");
  for (const char* id : {"gpu.matmul", "gpu.memory_bandwidth", "gpu.host_device_copy", "gpu.p2p", "interconnect.allreduce"}) {
    AddCheck(r, id, Outcome::Skip, "нет GPU");
  }
  AddCheck(r, "smoke.ddp", Outcome::Pass);
  AddCheck(r, "smoke.fsdp2", Outcome::Pass);
  // Without a GPU the Llama smoke test trains a tiny configuration (docs/measurement-keys.md).
  Measure(r, "smoke.llama_train", "smoke.llama_cpu_tiny.tokens_per_s", 2400, "tokens/s");
  Measure(r, "smoke.llama_train", "smoke.llama_cpu_tiny.train_gflops", 35, "GFLOPS");
  for (const char* id : {"smoke.qlora", "smoke.flash_attention", "smoke.vllm", "smoke.unsloth"}) {
    AddCheck(r, id, Outcome::Skip, "нет GPU");
  }
  return r;
}

Report CourseMachineReport() {
  Report r;
  r.meta.tool_version = "0.1.0";
  r.meta.started_at = "2026-12-02T14:00:00Z";
  Environment(r, {{"available", true}, {"device_count", 4}, {"version", "12.4"}});
  CheckResult& inv = AddCheck(r, "gpu.inventory", Outcome::Pass);
  inv.data["gpus"] = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) inv.data["gpus"].push_back(InventoryGpu(i, "NVIDIA GeForce RTX 4080", 31.99, 8, 9, 76, 4, 16));
  inv.data["driver_version"] = "560.35.03";
  Measure(r, "gpu.inventory", "gpu.count", 4, "count");
  const double bf16[] = {74.1, 75.3, 73.8, 74.9};
  for (int i = 0; i < 4; ++i) {
    Measure(r, "gpu.matmul", fmt::format("gpu{}.matmul_bf16_tflops", i), bf16[i], "TFLOPS");
    Measure(r, "gpu.matmul", fmt::format("gpu{}.matmul_fp16_tflops", i), bf16[i] + 0.4, "TFLOPS");
    Measure(r, "gpu.memory_bandwidth", fmt::format("gpu{}.memory_copy_gbps", i), 612 + i, "GB/s");
    Measure(r, "gpu.host_device_copy", fmt::format("gpu{}.h2d_pinned_gbps", i), 24.6, "GB/s");
    Measure(r, "gpu.host_device_copy", fmt::format("gpu{}.d2h_pinned_gbps", i), 25.1, "GB/s");
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      if (i == j) continue;
      Measure(r, "gpu.p2p", fmt::format("p2p.{}-{}.access", i, j), 0, "0/1");
      Measure(r, "gpu.p2p", fmt::format("p2p.{}-{}.copy_gbps", i, j), 21.5, "GB/s");
    }
  }
  CheckResult& ar = AddCheck(r, "interconnect.allreduce", Outcome::Pass);
  ar.data = {{"hung", false}, {"nccl_error", nullptr}, {"wrong_sum", false}, {"transport", "SHM"}};
  Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 11.2, "GB/s");
  Measure(r, "interconnect.allreduce", "nccl.allreduce_ok", 1, "0/1");
  SmokePasses(r);
  Measure(r, "smoke.llama_train", "smoke.llama.tokens_per_s", 31000, "tokens/s");
  Measure(r, "smoke.llama_train", "smoke.llama.train_tflops", 32.5, "TFLOPS");
  return r;
}

void SetTopology(Report& report, const std::vector<std::vector<std::string>>& matrix) {
  nlohmann::json labels = nlohmann::json::array();
  for (size_t i = 0; i < matrix.size(); ++i) labels.push_back("GPU" + std::to_string(i));
  Inventory(report)["topology"] = {{"labels", labels}, {"matrix", matrix}, {"source", "nvml"}};
}

Report BridgedA100Report() {
  Report r;
  r.meta.tool_version = "0.1.0";
  r.meta.started_at = "2026-12-04T10:00:00Z";
  Environment(r, {{"available", true}, {"device_count", 4}});
  CheckResult& inv = AddCheck(r, "gpu.inventory", Outcome::Pass);
  inv.data["gpus"] = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) inv.data["gpus"].push_back(InventoryGpu(i, "NVIDIA A100 80GB PCIe", 79.6, 8, 0, 108, 4, 16));
  SetTopology(r, {{"X", "NV12", "SYS", "SYS"}, {"NV12", "X", "SYS", "SYS"}, {"SYS", "SYS", "X", "NV12"}, {"SYS", "SYS", "NV12", "X"}});
  Measure(r, "gpu.inventory", "gpu.count", 4, "count");
  for (int i = 0; i < 4; ++i) {
    Measure(r, "gpu.matmul", fmt::format("gpu{}.matmul_bf16_tflops", i), 250, "TFLOPS");
    Measure(r, "gpu.memory_bandwidth", fmt::format("gpu{}.memory_copy_gbps", i), 1650, "GB/s");
    Measure(r, "gpu.host_device_copy", fmt::format("gpu{}.h2d_pinned_gbps", i), 24.5, "GB/s");
    Measure(r, "gpu.host_device_copy", fmt::format("gpu{}.d2h_pinned_gbps", i), 25.5, "GB/s");
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      if (i == j) continue;
      const bool bridged = i / 2 == j / 2;
      Measure(r, "gpu.p2p", fmt::format("p2p.{}-{}.access", i, j), bridged ? 1 : 0, "0/1");
      Measure(r, "gpu.p2p", fmt::format("p2p.{}-{}.copy_gbps", i, j), bridged ? 265 : 20, "GB/s");
    }
  }
  CheckResult& ar = AddCheck(r, "interconnect.allreduce", Outcome::Pass);
  ar.data = {{"hung", false}, {"wrong_sum", false}, {"transport", "P2P+SHM"}};
  Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 13.5, "GB/s");
  Measure(r, "interconnect.allreduce", "nccl.allreduce_ok", 1, "0/1");
  SmokePasses(r);
  return r;
}

Report H100Report() {
  Report r;
  r.meta.tool_version = "0.1.0";
  r.meta.started_at = "2026-12-03T09:30:00Z";
  Environment(r, {{"available", true}, {"device_count", 8}});
  CheckResult& inv = AddCheck(r, "gpu.inventory", Outcome::Pass);
  inv.data["gpus"] = nlohmann::json::array();
  for (int i = 0; i < 8; ++i) inv.data["gpus"].push_back(InventoryGpu(i, "NVIDIA H100 80GB HBM3", 79.6, 9, 0, 132, 5, 16));
  inv.data["driver_version"] = "550.90.07";
  std::vector<std::vector<std::string>> nv18(8, std::vector<std::string>(8, "NV18"));
  for (int i = 0; i < 8; ++i) nv18[i][i] = "X";
  SetTopology(r, nv18);
  Measure(r, "gpu.inventory", "gpu.count", 8, "count");
  for (int i = 0; i < 8; ++i) {
    Measure(r, "gpu.matmul", fmt::format("gpu{}.matmul_bf16_tflops", i), 720, "TFLOPS");
    Measure(r, "gpu.matmul", fmt::format("gpu{}.matmul_fp16_tflops", i), 725, "TFLOPS");
    Measure(r, "gpu.memory_bandwidth", fmt::format("gpu{}.memory_copy_gbps", i), 2900, "GB/s");
    Measure(r, "gpu.host_device_copy", fmt::format("gpu{}.h2d_pinned_gbps", i), 51, "GB/s");
    Measure(r, "gpu.host_device_copy", fmt::format("gpu{}.d2h_pinned_gbps", i), 50, "GB/s");
  }
  Measure(r, "gpu.p2p", "p2p.0-1.access", 1, "0/1");
  Measure(r, "gpu.p2p", "p2p.0-1.copy_gbps", 390, "GB/s");
  CheckResult& ar = AddCheck(r, "interconnect.allreduce", Outcome::Pass);
  ar.data = {{"hung", false}, {"wrong_sum", false}, {"transport", "NVLS"}};
  Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 360, "GB/s");
  Measure(r, "interconnect.allreduce", "nccl.allreduce_ok", 1, "0/1");
  SmokePasses(r);
  Measure(r, "smoke.llama_train", "smoke.llama.tokens_per_s", 260000, "tokens/s");
  Measure(r, "smoke.llama_train", "smoke.llama.train_tflops", 280, "TFLOPS");
  return r;
}

}  // namespace labcheck::expect::testing
