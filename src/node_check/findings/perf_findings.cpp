// Findings from the short benchmarks: each card's BF16 matmul and device copy against the
// catalog's band (datasheet × the realistic share, data/gpus.json), less the tolerance, and
// against its siblings: a card max_spread slower than the median card is a finding even when the
// catalog does not know the model.
#include <algorithm>

#include <fmt/format.h>

#include "node_check/findings/findings.h"

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

// A card the site capped on purpose (--expect-power-limit) is judged against a matmul band lowered
// in proportion to the limit it ran under: low edge × limit / default limit. No datasheet rates a
// card's TFLOPS at a lower limit, so the scale is a bound, chosen lenient: a card's clock and
// voltage fall together as its limit falls, and dynamic power goes with clock × voltage², so its
// work per watt rises at a lower limit and throughput falls more slowly than the watts do. A
// linear scale never asks a capped card for more than it can do; it can let a slightly slow capped
// card pass. (CMU's Babel cluster wiki: an RTX 3090 cut from 366 W to 270-280 W loses about 5 %,
// https://wiki.babel.cs.cmu.edu/index.php?oldid=157&title=Efficiency; no data-center card's
// measured curve was found.) Without the flag a lowered limit is itself the finding (health_findings.cpp), and the
// band stays the card's full one. The limits come with each matmul figure (node_check_job.cpp).
double PowerCapScale(const json& figure, const NodeExpectations& e) {
  if (!e.power_limit_w) return 1;
  const json& limit = figure.value("power_limit_w", json(nullptr));
  const json& fallback = figure.value("power_default_limit_w", json(nullptr));
  if (!limit.is_number() || !fallback.is_number() || fallback.get<double>() <= 0) return 1;
  return std::clamp(limit.get<double>() / fallback.get<double>(), 0.0, 1.0);
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
    if (peak) matmul_low[k] = *peak * catalog.matmul_share().low * (k < matmul.size() ? PowerCapScale(matmul[k], expect) : 1);
    if (spec->memory_bandwidth_gbps) copy_low[k] = *spec->memory_bandwidth_gbps * catalog.memory_copy_share().low;
  }
  Judge({"matmul", "матмул", "matmul", "TFLOPS", "matmul_tflops"}, tflops, matmul_low, expect, out, gpus);
  Judge({"copy", "копирование", "copy", "GB/s", "copy_gbps"}, gbps, copy_low, expect, out, gpus);
}

}  // namespace labcheck::node_check
