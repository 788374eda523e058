#include "gpu/jobs/figure_json.h"

#include <cmath>

namespace labcheck::gpu {

nlohmann::json SampledJson(const Sampled& s) {
  return {{"median_ms", s.median}, {"min_ms", s.min}, {"max_ms", s.max}, {"repeats", s.count}, {"cv", s.cv}};
}

nlohmann::json NvmlSamplesJson(const NvmlSamples& s) {
  // "samples": taken while the work ran; "idle_samples": outside it, used for nothing.
  // "clock_event_reasons": those that held over the series (bench/clock_event_hold.h);
  // "clock_event_reasons_transient": read in too few samples to count, shown for the record.
  nlohmann::json j = {{"clock_event_reasons", s.ReasonNames()},
                      {"clock_event_reasons_transient", s.TransientReasonNames()},
                      {"samples", s.count},
                      {"idle_samples", s.idle_count}};
  j["min_sm_clock_mhz"] = s.min_sm_clock_mhz ? nlohmann::json(*s.min_sm_clock_mhz) : nlohmann::json(nullptr);
  j["max_power_w"] = s.max_power_w ? nlohmann::json(*s.max_power_w) : nlohmann::json(nullptr);
  j["pcie_gen_under_load"] = s.pcie_gen_under_load ? nlohmann::json(*s.pcie_gen_under_load) : nlohmann::json(nullptr);
  j["pcie_width_under_load"] =
      s.pcie_width_under_load ? nlohmann::json(*s.pcie_width_under_load) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json MatmulFigureJson(const MatmulFigure& f) {
  nlohmann::json j = SampledJson(f.call_ms);
  j["tflops"] = f.tflops;
  j["size"] = f.size;
  j["algos_timed"] = f.algos_timed;
  j["warmup"] = {{"device_ms", f.warmup.device_ms}, {"calls", f.warmup.calls}, {"settled", f.warmup.settled},
                 {"settled_call_ms", f.warmup.settled_call_ms}};
  if (f.precision == MatmulPrecision::FP8) j["fast_accumulation"] = f.fast_accumulation;
  double worst = f.check.worst_error_over_tolerance;
  j["check"] = {{"samples", f.check.samples}, {"failures", f.check.failures}, {"ok", f.check.ok()},
                {"worst_error_over_tolerance", std::isfinite(worst) ? nlohmann::json(worst) : nlohmann::json("inf")}};
  j["nvml"] = NvmlSamplesJson(f.nvml);
  return j;
}

nlohmann::json CopyFigureJson(const CopyFigure& f) {
  nlohmann::json j = SampledJson(f.copy_ms);
  j["bytes"] = f.bytes;
  j["bytes_counted"] = f.bytes_counted;
  j["gbps"] = f.gbps;
  j["nvml"] = NvmlSamplesJson(f.nvml);
  if (f.launch) {
    j["blocks"] = f.launch->blocks;
    j["threads_per_block"] = f.launch->threads_per_block;
  }
  if (f.data_check) {
    j["data_check"] = {{"delivered", f.data_check->delivered}};
    if (!f.data_check->delivered) j["data_check"]["first_wrong"] = f.data_check->first_wrong;
  }
  return j;
}

}  // namespace labcheck::gpu
