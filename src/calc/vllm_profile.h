// How one vLLM version profiles memory before it sizes the KV cache: the rule a version follows
// (data/vllm_profiles.json, each constant with the log it comes from) and how the hybrid KV cache
// manager lays layers out in its block pool. serving.cpp applies the rule; `serve --vllm-version`
// picks it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "calc/architecture.h"
#include "core/status.h"

namespace labcheck::calc {

// "0.19.0", "v0.8.5.post1", "0.11.0rc2", "0.10.1+cu128", "0.19": the numeric release, the rest ignored.
struct VllmVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string text;  // as given
  bool operator<(const VllmVersion& o) const;
};
std::optional<VllmVersion> ParseVllmVersion(const std::string& text);

struct VllmProfileRule {
  std::string id;
  VllmVersion from;                          // first version the rule applies to
  std::vector<std::string> checked_versions; // versions whose logs were compared
  double sampler_bytes_per_vocab_entry = 0;  // per row of max_num_seqs and vocabulary entry
  double non_torch_gib = 0;                  // TP = 1
  double non_torch_tp_gib = 0;               // TP > 1
  bool hybrid_kv_groups = false;             // sliding-window layers grouped (and padded) in one pool
  // From vLLM 0.21 the memory profile captures the CUDA graphs and counts their memory inside the
  // gpu_memory_utilization budget, before the KV cache is sized; before, they were captured after
  // it, from the rest of the card (the 0.29.0 log: "CUDA graph memory profiling is enabled (default
  // since v0.21.0)").
  bool cuda_graphs_in_budget = false;
  // The --gpu-memory-utilization vLLM takes when none is given: 0.9 before 0.21, 0.92 from 0.21
  // (PR #38284 raised it when it moved the graphs into the budget); the source says what is proven.
  double default_utilization = 0;
  std::string default_utilization_source;
  std::string source;                        // where the constants come from, in one line
};

// The rule for `version`: the last whose from_version is not above it (the first rule for older
// versions). `checked` says whether the version lies between the rule's first and last logged
// versions (same minor release or between them); otherwise the rule is an extrapolation.
struct VllmProfileChoice {
  VllmProfileRule rule;
  VllmVersion version;
  bool checked = false;
  bool flashinfer_sampler = false;  // the sampler pass is charged at FlashInfer's bytes, not the rule's
};
VllmProfileChoice ChooseVllmProfile(const VllmVersion& version);

// FlashInfer's top-k/top-p sampler, which vLLM runs instead of its PyTorch path when FlashInfer is
// installed and the version picks it (its log: "Using FlashInfer for top-p & top-k sampling"): the
// bytes its profile pass needs per row and vocabulary entry (data/vllm_profiles.json,
// flashinfer_sampler). It does not sort the vocabulary, so it needs less than the sorting path.
double FlashInferSamplerBytesPerVocabEntry();
// The same choice with the sampler pass charged as FlashInfer's.
VllmProfileChoice WithFlashInferSampler(VllmProfileChoice choice);
// The version assumed when none is given or installed (data/vllm_profiles.json, default_version).
VllmVersion DefaultVllmVersion();
const std::vector<VllmProfileRule>& VllmProfileRules();

// The start-up logs the rules were checked against (data/vllm_profiles.json, checked_logs), each
// with its card (an id of data/gpus.json) and vLLM version.
struct CheckedVllmLog {
  std::string case_id;  // the case in tests/calc/vllm_startup_cases.json
  std::string gpu_id;
  VllmVersion version;
};
const std::vector<CheckedVllmLog>& CheckedVllmLogs();

// How many of those logs stand behind a plan for `gpu_id` (empty: card unknown) at `version`:
// versions count as the same within a minor release (0.19.0 and 0.19.1), as rules are chosen.
struct VllmLogCoverage {
  int this_card_this_version = 0;
  int this_card = 0;
  int this_version = 0;
  int total = 0;
  std::vector<std::string> cards;  // ids of the cards with a checked log, each once, in file order
};
VllmLogCoverage CountCheckedVllmLogs(const std::string& gpu_id, const VllmVersion& version);

// Attention layers as the hybrid KV cache manager lays them out: every attention type (full, or a
// sliding window of a given size) forms groups of `group_size` layers, group_size being the
// smallest type's count (the largest when that is within 1.25x of the smallest), the last group of
// a type padded to full size. Each group slot takes as much memory per block as a layer, so the pool
// holds room / (slots x bytes per layer and token) tokens. Without the hybrid manager, or with one
// attention type, slots = attention layers. The state layers of a hybrid (Mamba, Mamba-2, Gated
// DeltaNet: one MambaSpec) are one more type, grouped the same way (vllm_hybrid_pages.h).
struct KvLayerSlots {
  int64_t attention_layers = 0;
  int64_t state_layers = 0;
  int64_t slots = 0;         // attention_layers + state_layers + padding
  int64_t group_size = 0;    // 0 when there is a single group type
  int64_t groups = 0;        // state_groups included
  int64_t state_groups = 0;

  int64_t padding() const { return slots - attention_layers - state_layers; }
};
KvLayerSlots HybridKvLayerSlots(const Architecture& arch, bool hybrid_kv_groups);

}  // namespace labcheck::calc
