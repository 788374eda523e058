// Serving with vLLM: does the model fit, at which tensor-parallel degree, and how many tokens of
// KV cache remain. vLLM (V1 engine, gpu_worker.determine_available_memory) takes
// gpu_memory_utilization x card memory, subtracts the weights, the torch peak of its profile run
// (a forward pass of max_num_batched_tokens and a sampler pass over max_num_seqs rows) and the
// non-torch memory, and gives the rest to the KV cache in blocks of 16 tokens; the sampler's bytes
// and the non-torch memory differ between versions (vllm_profile.h, data/vllm_profiles.json); it refuses to start
// when that cannot hold one sequence of max_model_len and prints the longest one that fits
// (vllm/v1/core/kv_cache_utils.py, check_enough_kv_cache_memory / estimate_max_model_len).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/vllm_hybrid_pages.h"
#include "calc/vllm_profile.h"
#include "core/status.h"
#include "core/text.h"

namespace labcheck::calc {

// Checkpoint: the weights as the checkpoint's quantization_config stores them (what `vllm serve`
// loads when given no --quantization).
enum class ServeQuant { Bf16, Int8, Int4, Checkpoint };
std::optional<ServeQuant> ParseServeQuant(const std::string& text);
const char* ServeQuantName(ServeQuant quant);

struct ServeSettings {
  int gpus = 1;
  double gpu_memory_gib = 0;
  std::string gpu_name;  // picks vLLM's batch defaults (A100s get the small ones); may be empty
  std::string gpu_id;    // the card's id in data/gpus.json; empty when the card is not known
  int gpu_cc_major = 0;  // the card's compute capability (major); 0 when not known. Picks vLLM's MXFP4 MoE kernel
  ServeQuant quant = ServeQuant::Bf16;
  double utilization = 0.9;  // serve sets the flag's, else the version's default (VllmProfileRule::default_utilization)
  int64_t max_model_len = 0;  // 0: the model's max_position_embeddings
  double kv_dtype_bytes = 2;
  int64_t max_num_seqs = 0;            // 0: vLLM's default for this GPU
  int64_t max_num_batched_tokens = 0;  // 0: likewise
  bool enforce_eager = false;          // no CUDA graphs
  // --data-parallel-size: dp engine replicas, each with its own KV cache, tp GPUs each. With
  // --enable-expert-parallel the routed experts are sharded over all tp x dp GPUs (whole experts per
  // GPU) while attention, embeddings and dense layers stay split by tp and replicated per dp rank.
  int data_parallel = 1;
  bool expert_parallel = false;
  VllmProfileChoice profile = ChooseVllmProfile(DefaultVllmVersion());  // the vLLM version's rule
};

// vLLM's `vllm serve` batch defaults (engine/arg_utils.py get_batch_defaults): 8192 tokens and
// 1024 sequences on cards of 70 GiB and more other than the A100, else 2048 and 256.
struct BatchDefaults {
  int64_t max_num_batched_tokens = 0;
  int64_t max_num_seqs = 0;
};
BatchDefaults VllmBatchDefaults(double gpu_memory_gib, const std::string& gpu_name, const CalcConstants& constants);

struct TpOption {
  int tp = 1;
  bool heads_divide = true;       // attention heads and KV heads split (or replicate) evenly
  double weights_per_gpu = 0;
  std::optional<double> activation_peak_per_gpu;  // nullopt: needs the architecture
  double non_torch_per_gpu = 0;
  double budget_per_gpu = 0;      // utilization x memory
  double kv_room_per_gpu = 0;     // may be negative
  std::optional<int64_t> kv_tokens;       // rounded down to whole blocks; nullopt: needs the architecture
  std::optional<int64_t> max_concurrency; // sequences of max_model_len
  std::optional<int64_t> longest_fitting_len;  // vLLM's estimate when max_model_len does not fit
  // A hybrid with state layers: vLLM's page layout and its "Maximum concurrency" figure.
  std::optional<HybridPages> hybrid_pages;
  std::optional<double> vllm_concurrency;
  bool fits = false;
};

// A tensor-parallel degree at a shorter --max-model-len than asked: what vLLM's own error would
// estimate for it ("the estimated maximum model length is …") and the command that starts with it.
struct ShorterLength {
  int tp = 1;
  int64_t max_model_len = 0;
  std::string vllm_command;
};

struct ServePlan {
  double weights_bytes = 0;  // whole model at the chosen quantisation
  double expert_weights_bytes = 0;  // the routed experts' part of it (what expert parallelism shards)
  int data_parallel = 1;
  int64_t max_model_len = 0; // 0 when unknown (bare size)
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  // Which of the two vLLM chose for the card (the user gave the other): the note names only those.
  bool max_num_seqs_defaulted = false;
  bool max_num_batched_tokens_defaulted = false;
  bool batch_defaults_taken() const { return max_num_seqs_defaulted || max_num_batched_tokens_defaulted; }
  double cuda_graph_bytes = 0;    // per GPU, captured after the KV cache outside the budget
  KvLayerSlots kv_slots;          // attention layers as the block pool holds them (padding included)
  std::vector<TpOption> options;  // tp = 1 .. gpus
  std::optional<int> chosen_tp;   // smallest that fits
  // When nothing fits at max_model_len: the widest working tp and the longest length it holds.
  std::optional<int> suggested_tp;
  std::optional<int64_t> suggested_max_model_len;
  std::string vllm_command;       // empty when nothing can start
  // The degrees narrower than the chosen one (or beside the suggested one) that fail only because one
  // sequence of max_model_len does not fit: the longest length each holds and its command.
  std::vector<ShorterLength> shorter_lengths;
  Text note;                       // about quantisation or bare sizes
};

// Weights of the model served at `quant`: linear layers quantised, embeddings/lm_head BF16.
double ServingWeightBytes(const ModelInput& model, ServeQuant quant, const CalcConstants& constants);
// The routed experts' bytes at `quant` (0 without the architecture or experts).
double ServingExpertWeightBytes(const ModelInput& model, ServeQuant quant, const CalcConstants& constants);
// MXFP4 experts served as stored on a card before Hopper (compute capability below 9.0): vLLM runs
// them with its Marlin MoE kernel, which needs n % 256 == 0 and k % 128 == 0, so it allocates each
// expert with the intermediate size per rank rounded up to a multiple of 128 and the hidden size to
// a multiple of 256 (vllm/model_executor/layers/quantization/mxfp4.py, Mxfp4MoEMethod.create_weights,
// the MARLIN branch; Triton and FlashInfer on Hopper and later pad less). The factor by which one
// GPU's expert weights (and their scales) grow; 1 where that kernel is not used. `intermediate_split`
// is how many ranks share each expert's intermediate size (tp, or 1 under expert parallelism).
double MarlinMxfp4ExpertPadding(const Architecture& arch, const ServeSettings& s, int64_t intermediate_split);
// The tp vLLM accepts: it divides the attention heads, and it divides the KV heads or is a
// multiple of them (then each KV head is replicated on tp / kv_heads GPUs). The error says why not.
Status CheckTensorParallel(const Architecture& arch, int tp, Lang lang);
ServePlan PlanServing(const ModelInput& model, const ServeSettings& settings, const CalcConstants& constants);
nlohmann::json ServePlanJson(const ServePlan& plan, const ServeSettings& settings);

}  // namespace labcheck::calc
