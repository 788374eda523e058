// Findings from the short benchmarks: each card's BF16 matmul and device copy against the
// catalog's band (datasheet × the realistic share, data/gpus.json), less the tolerance, and
// against its siblings: a card max_spread slower than the median card is a finding even when the
// catalog does not know the model.
#include <algorithm>

#include <fmt/format.h>

#include "node_check/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

struct Figure {
  int index = 0;
  std::optional<double> value;
  std::string error;
};

std::vector<Figure> Read(const json& list, const char* key) {
  std::vector<Figure> out;
  for (const json& g : list.is_array() ? list : json::array()) {
    Figure f{g.value("index", static_cast<int>(out.size())), std::nullopt, ""};
    if (g.contains(key) && g[key].is_number()) f.value = g[key].get<double>();
    else if (g.contains("error")) f.error = g["error"].get<std::string>();
    else if (g.contains("na")) f.error = g["na"].get<std::string>();
    out.push_back(f);
  }
  return out;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

struct Kind {
  const char* item;      // "matmul", "copy"
  const char* ru;        // "матмул"
  const char* en;        // "matmul"
  const char* unit;      // "TFLOPS"
  const char* gpu_key;   // the figure's key in the verdict's per-card JSON
};

void Judge(const Kind& kind, const std::vector<Figure>& figures, const std::vector<std::optional<double>>& band_low,
           const NodeExpectations& e, std::vector<Finding>& out, json& gpus) {
  std::vector<double> measured;
  for (const Figure& f : figures)
    if (f.value) measured.push_back(*f.value);
  const double median = Median(measured);
  for (size_t k = 0; k < figures.size(); ++k) {
    const Figure& f = figures[k];
    json& card = gpus[k];
    if (!f.value) {
      card[kind.gpu_key] = nullptr;
      // A benchmark that could not run on one card while it ran on others is that card's fault;
      // on none (no cuBLASLt here) it says nothing about the cards.
      if (!measured.empty())
        out.push_back({f.index, std::string(kind.item) + "_error",
                       T(fmt::format("{} не измерен: {}", kind.ru, f.error), fmt::format("{} failed: {}", kind.en, f.error))});
      continue;
    }
    card[kind.gpu_key] = *f.value;
    const std::optional<double> low = k < band_low.size() ? band_low[k] : std::nullopt;
    if (low) card[std::string(kind.gpu_key) + "_band_low"] = *low;
    if (low && *f.value < *low * (1 - e.perf_tolerance)) {
      out.push_back({f.index, std::string(kind.item) + "_band",
                     T(fmt::format("{} {:.0f} {} (ожидалось от {:.0f})", kind.ru, *f.value, kind.unit, *low),
                       fmt::format("{} {:.0f} {} (expected {:.0f}+)", kind.en, *f.value, kind.unit, *low))});
    } else if (measured.size() > 1 && *f.value < median * (1 - e.max_spread)) {
      const double below = 100 * (1 - *f.value / median);
      out.push_back({f.index, std::string(kind.item) + "_spread",
                     T(fmt::format("{} {:.0f} {}, на {:.0f}% ниже остальных", kind.ru, *f.value, kind.unit, below),
                       fmt::format("{} {:.0f} {}, {:.0f}% below the others", kind.en, *f.value, kind.unit, below))});
    }
  }
}

}  // namespace

void AddPerformanceFindings(const json& matmul, const json& copy, const std::vector<const reference::GpuSpec*>& specs,
                            const NodeExpectations& expect, std::vector<Finding>& out, json& gpus) {
  const reference::GpuCatalog& catalog = reference::GpuCatalog::Builtin();
  const std::vector<Figure> tflops = Read(matmul, "tflops"), gbps = Read(copy, "gbps");
  const size_t n = std::max({tflops.size(), gbps.size(), specs.size()});
  while (gpus.size() < n) gpus.push_back({{"index", gpus.size()}});
  std::vector<std::optional<double>> matmul_low(n), copy_low(n);
  for (size_t k = 0; k < n && k < specs.size(); ++k) {
    const reference::GpuSpec* spec = specs[k];
    if (spec == nullptr) continue;
    // The band of the precision measured: BF16, or FP16 on a card without it (node_check_job.cpp).
    const bool fp16 = k < matmul.size() && matmul[k].value("precision", std::string("bf16")) == "fp16";
    const std::optional<double> peak = fp16 ? spec->fp16_tflops : spec->bf16_tflops;
    if (peak) matmul_low[k] = *peak * catalog.matmul_share().low;
    if (spec->memory_bandwidth_gbps) copy_low[k] = *spec->memory_bandwidth_gbps * catalog.memory_copy_share().low;
  }
  Judge({"matmul", "матмул", "matmul", "TFLOPS", "matmul_tflops"}, tflops, matmul_low, expect, out, gpus);
  Judge({"copy", "копирование", "copy", "GB/s", "copy_gbps"}, gbps, copy_low, expect, out, gpus);
}

}  // namespace labcheck::node_check
