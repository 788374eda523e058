// What the parent-side GPU checks share: running a GPU child job with the search paths and the
// time budget of the check, and stopping early when the inventory already found no GPU.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/check_result.h"
#include "gpu/checks/gpu_check_spec.h"
#include "probes/interpreter.h"
#include "runner/check.h"
#include "runner/child_job.h"

namespace labcheck::gpu {

// The course: "off by 2× or more is a reason to look into it" (data/course_expectations.json): a
// figure under this share of its band is a finding (gpu.p2p's pairs, the all-reduce's ring).
inline constexpr double kFarBelow = 0.5;

// The site-packages folders of the run's interpreter, asked once per run (probes/interpreter.h):
// none, with the reason, when it does not answer; none, without one, when the run has no Python.
probes::SitePackages SitePackagesFor(const CheckContext& context);

// Runs `job` with --site-packages (SitePackagesFor) and --quick when asked.
ChildJobOutcome RunGpuJob(const CheckContext& context, const std::string& job, std::vector<std::string> extra_args = {},
                          std::vector<std::pair<std::string, std::string>> env = {}, double timeout_s = 0);

// The prologue every GPU check after gpu.inventory shares: SKIP when gpu.inventory found no usable
// GPU, the progress line, the check's child job, and what its envelope says (SKIP, FAIL, a crash,
// a timeout, Ctrl-C).
struct GpuJobReply {
  std::optional<CheckResult> ending;  // set: the check's result, return it as is
  nlohmann::json payload;             // otherwise: the child's "ok" JSON
};
GpuJobReply RunGpuJobFor(CheckContext& context, const GpuCheckSpec& check, const std::string& progress);
// The same without asking gpu.inventory: for gpu.inventory itself, which cannot read its own result.
GpuJobReply RunFirstGpuJob(CheckContext& context, const GpuCheckSpec& check, const std::string& progress);

// SKIP (with the inventory's own reason) when gpu.inventory ran and found no usable GPU.
std::optional<CheckResult> SkipWithoutGpus(const CheckContext& context, const std::string& check_id);

// The GPU count and each GPU's inventory entry, from gpu.inventory's data (empty if it did not run).
// SKIP for a check that needs a pair of cards where CUDA sees one: `one_gpu` on a one-card
// machine; where CUDA_VISIBLE_DEVICES leaves one of several visible, that and its fix.
std::optional<CheckResult> SkipWithOneGpu(const CheckContext& context, const std::string& check_id, const Text& one_gpu);
const nlohmann::json* InventoryGpu(const CheckContext& context, int index);

// The spread of a rate measured from repeated timings: a figure's {median_ms, min_ms, max_ms,
// repeats, cv} (SampledJson); nullopt when the figure carries no repeats.
std::optional<Spread> TimingSpread(double rate, const nlohmann::json& figure);

// "12.3" with the precision a figure deserves in a table.
std::string Figure(double value);

// How a child job measured, in the report's two languages: its "method" (English, also what the
// JSON of older runs holds) and "method_ru" (the English one where a job has none).
Text PayloadMethod(const nlohmann::json& payload);

}  // namespace labcheck::gpu
