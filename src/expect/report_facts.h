// The facts the analyser needs, read once from a finished (possibly partial) Report: which GPUs
// the driver reports, what PyTorch sees, how the run was started. Missing checks and fields leave
// fields empty; nothing here throws.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/run_facts.h"
#include "report/saved_report_json.h"  // DataFlag, DataString
#include "reference/derived_spec.h"
#include "reference/gpu_catalog.h"
#include "reference/pcie_link.h"
#include "reference/peer_link.h"
#include "report/report.h"

namespace labcheck::expect {

struct GpuFacts {
  int index = 0;
  reference::DriverFacts driver;
  std::vector<std::string> clock_event_reasons;  // read during the matmul (gpu.matmul data)
  // The PCIe link NVML read while the pinned CPU→GPU copy ran (gpu.host_device_copy data).
  std::optional<int> pcie_gen_under_load, pcie_width_under_load;
  const reference::GpuSpec* catalog_spec = nullptr;  // null: not in the catalog
  reference::GpuSpec derived_spec;                   // used when catalog_spec is null

  const reference::GpuSpec& spec() const { return catalog_spec ? *catalog_spec : derived_spec; }
  bool derived() const { return catalog_spec == nullptr; }
};

// One ordered pair of GPUs: what joins them (gpu.inventory's topology, gpu.p2p's access) and what
// a copy between them should reach (reference/peer_link.h).
struct PairFacts {
  int from = 0, to = 0;
  reference::PeerLink link;
  reference::PeerExpectation expected;
};

// The slowest link of the best ring through all GPUs: what bounds all-reduce's bus bandwidth.
struct RingLimit {
  int a = 0, b = 0;  // the pair that sets it (one of them, when several are as slow)
  reference::PeerExpectation expected;
};

struct ReportFacts {
  // The cards CUDA saw (gpu.inventory), else indices seen in keys; where CUDA saw none and NVML
  // lists the driver's cards (hidden by CUDA_VISIBLE_DEVICES, CUDA failed), those, so that every
  // reference is the right model's; nothing of theirs is measured then.
  std::vector<GpuFacts> gpus;
  bool gpus_from_nvml = false;  // NVML's list: no link between them is known, none is measured
  bool inventory_present = false;
  // The interpreter and torch, the driver's cards against CUDA's, the flags: what the words are
  // chosen from (src/facts/statements.h).
  facts::RunFacts run;
  bool quick = false;
  bool skip_dist = false;
  bool interrupted = false;
  std::vector<PairFacts> pairs;  // every ordered pair of `gpus`
  bool topology_known = false;   // gpu.inventory carried NVML's topology matrix
  std::optional<RingLimit> ring;  // none with fewer than two GPUs or a pair of unknown speed

  const PairFacts* Pair(int from, int to) const {
    for (const PairFacts& p : pairs)
      if (p.from == from && p.to == to) return &p;
    return nullptr;
  }

};

// Report's lookups taking string_view, as the analyser's keys are often literals.
const CheckResult* FindCheck(const Report& report, std::string_view id);
const Measurement* FindMeasurement(const Report& report, std::string_view key);
std::optional<double> MeasuredValue(const Report& report, std::string_view key);

// interconnect.allreduce: the sum came back wrong in the first attempt or in the retry with
// NCCL_P2P_DISABLE=1 (docs/report-schema.md). A wrong sum makes its speed meaningless.
bool AllreduceWrongSum(const Report& report);

ReportFacts ReadFacts(const Report& report, const reference::GpuCatalog& catalog);

// The card whose PCIe link ran furthest below what the card is rated for (under load when NVML
// sampled it, else the driver's maximum for card and slot); nullopt when every link is as rated.
// What explains a slow copy or all-reduce; it never moves a reference.
std::optional<reference::RanLink> SlowestLinkBelowRating(const ReportFacts& facts);

// Fills facts.pairs, topology_known and ring from gpu.inventory's topology, the p2p.{i}-{j}.access
// measurements and the pinned host copies (pair_facts.cpp); ReadFacts calls it.
void ReadPairFacts(const Report& report, const reference::GpuCatalog& catalog, ReportFacts& facts);

}  // namespace labcheck::expect
