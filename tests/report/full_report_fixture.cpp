#include "full_report_fixture.h"

#include <fmt/format.h>

#include "expect/expectations.h"
#include "../expect/report_fixtures.h"

namespace labcheck::html_testing {
namespace {

using nlohmann::json;

Measurement* Find(Report& r, const std::string& key) {
  for (CheckResult& c : r.checks) {
    for (Measurement& m : c.measurements) {
      if (m.key == key) return &m;
    }
  }
  return nullptr;
}

json Sweep(double scale) {
  json sizes = json::array();
  for (int p = 20; p <= 30; p += 2) {  // 1 MiB … 1 GiB
    const double bytes = static_cast<double>(1ull << p);
    const double busbw = scale * 12.0 * bytes / (bytes + 8e6);
    sizes.push_back({{"bytes", bytes}, {"time_ms", bytes / busbw / 1e6}, {"algbw_gbps", busbw / 1.5},
                     {"busbw_gbps", busbw}, {"correct", true}});
  }
  return sizes;
}

}  // namespace

CheckResult BurnCheck() {
  CheckResult c;
  c.id = "gpu.burn";
  c.section = "gpu";
  c.title = T("Прогрев под нагрузкой", "Burn under load");
  c.outcome = Outcome::Warn;
  c.summary = T("GPU 1 снижает частоту от перегрева", "GPU 1 throttles: thermal");
  c.data = {{"interval_s", 1.0}, {"gpus", json::array()}};
  for (int g = 0; g < 2; ++g) {
    json samples = json::array();
    for (int t = 1; t <= 30; ++t) {
      const bool hot = g == 1 && t > 18;
      json s = {{"t_s", t},
                {"tflops", hot ? 61.0 : 74.0 + 0.1 * t},
                {"sm_clock_mhz", hot ? 2250 : 2505},
                {"mem_clock_mhz", 11201},
                {"power_w", 300.0 + g * 4},
                {"temperature_c", 60 + t * (g == 1 ? 1.0 : 0.4)},
                {"fan_percent", 60},
                {"clock_event_reasons", hot ? json::array({"thermal"}) : json::array()}};
      if (t == 10) s["power_w"] = nullptr;  // NVML missed a sample
      samples.push_back(s);
    }
    c.data["gpus"].push_back({{"index", g}, {"name", "NVIDIA GeForce RTX 4080"}, {"samples", samples}});
  }
  return c;
}

Report FullCourseReport(Lang lang) {
  Report r = expect::testing::CourseMachineReport();
  r.lang = lang;
  r.meta.duration_s = 412;
  for (CheckResult& c : r.checks) {
    if (c.title.empty()) c.title = Text(c.id);
    if (c.section == "env") c.section = "environment";  // as the environment checks file themselves
  }
  // One card far below the band: its bar and its row are flagged.
  Find(r, "gpu3.matmul_bf16_tflops")->value = 30.5;
  // Labels as the GPU checks write them.
  const std::vector<std::pair<const char*, Text>> kinds = {
      {"matmul_bf16_tflops", T("матмул BF16", "matmul BF16")},     {"matmul_fp16_tflops", T("матмул FP16", "matmul FP16")},
      {"memory_copy_gbps", T("память", "memory")},                 {"h2d_pinned_gbps", T("CPU→GPU, pinned", "CPU→GPU, pinned")},
      {"d2h_pinned_gbps", T("GPU→CPU, pinned", "GPU→CPU, pinned")}};
  for (int i = 0; i < 4; ++i) {
    for (const auto& [kind, label] : kinds) {
      Measurement* m = Find(r, fmt::format("gpu{}.{}", i, kind));
      m->label = T(fmt::format("GPU{}: {}", i, label.ru), fmt::format("GPU{}: {}", i, label.en));
      m->spread = SpreadOfRate(m->value, 10.0, 9.9, i == 2 ? 11.5 : 10.1, 40, i == 2 ? 0.06 : 0.004);
    }
    Measurement* h2d = Find(r, fmt::format("gpu{}.h2d_pinned_gbps", i));
    h2d->reference = 31.5;
    h2d->reference_label = Text("PCIe 4.0 x16");
  }
  CheckResult* ar = nullptr;
  for (CheckResult& c : r.checks) {
    if (c.id == "interconnect.allreduce") ar = &c;
  }
  ar->outcome = Outcome::Warn;
  ar->data = {{"sizes", json::array()}, {"transport", "unknown"}, {"hung", true}, {"crashed", false},
              {"nccl_error", nullptr}, {"wrong_sum", false}, {"p2p_disabled", false}, {"ranks", 4}};
  ar->data["p2p_disable_retry"] = {{"sizes", Sweep(1.0)}, {"transport", "SHM"}, {"hung", false}, {"crashed", false},
                                   {"nccl_error", nullptr}, {"wrong_sum", false}, {"p2p_disabled", true}};
  ar->data["sizes"] = Sweep(0.35);  // the first attempt got through the small sizes before it hung
  ar->data["sizes"].erase(ar->data["sizes"].size() - 1);

  CheckResult mem;
  mem.id = "cpu.memory_bandwidth";
  mem.section = "cpu";
  mem.title = T("Пропускная способность памяти", "Memory bandwidth");
  mem.outcome = Outcome::Pass;
  Measurement copy{"cpu.mem_copy_gbps", T("Память: копирование (STREAM copy)", "Memory: copy (STREAM copy)"), 38.2, "GB/s",
                   Text("bytes read + bytes written"), 51.2, T("2 канала × DDR4-3200", "2 channels × DDR4-3200")};
  copy.spread = SpreadOfValues({38.2, 37.9, 38.4, 36.1, 38.3, 38.2, 38.0, 38.5, 38.1, 38.2}, true);
  Measurement triad = copy;
  triad.key = "cpu.mem_triad_gbps";
  triad.label = T("Память: triad (STREAM)", "Memory: triad (STREAM)");
  triad.value = 41.0;
  triad.spread = SpreadOfValues({41.0, 40.8, 41.1, 41.2, 40.9}, false);
  mem.Add(copy);
  mem.Add(triad);
  CheckResult sgemm;
  sgemm.id = "cpu.matmul";
  sgemm.section = "cpu";
  sgemm.title = T("Умножение матриц на CPU (FP32)", "Matrix multiply on the CPU (FP32)");
  sgemm.outcome = Outcome::Pass;
  Measurement g{"cpu.sgemm_gflops", T("CPU: умножение матриц FP32 (OpenBLAS)", "CPU: FP32 matrix multiply (OpenBLAS)"), 1510,
                "GFLOPS", Text("2·N³ FLOP / time"), 2150, T("16 ядер × 4.2 ГГц × 32 FLOP", "16 cores × 4.2 GHz × 32 FLOP")};
  g.spread = SpreadOfValues({1510, 1480, 1522, 1498, 1530}, false);
  sgemm.Add(g);
  r.checks.insert(r.checks.begin() + 2, sgemm);
  r.checks.insert(r.checks.begin() + 2, mem);
  r.checks.push_back(BurnCheck());
  expect::AddExpectationSections(r);
  return r;
}

}  // namespace labcheck::html_testing
