#include "calc/serving.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "calc/byte_units.h"
#include "calc/checkpoint_weights.h"
#include "calc/kv_cache.h"
#include "calc/param_count.h"

namespace labcheck::calc {
namespace {


// The forward half of vLLM's profile run pushes max_num_batched_tokens through the model; layers
// run one after the other, so the peak is one layer's transient tensors: residual and hidden
// (2h), q/k/v and the attention output, the MLP's gate_up output and its activation (3 widths),
// split by tp.
double ProfileForwardBytes(const Architecture& arch, int tp, int64_t tokens) {
  const double width = arch.moe.enabled()
                           ? static_cast<double>(arch.moe.experts_per_token * arch.moe.expert_intermediate)
                           : static_cast<double>(arch.intermediate);
  const double per_token = kBf16 * (2.0 * arch.hidden + (2.0 * arch.q_dim() + 2.0 * arch.kv_dim() + 3 * width) / tp);
  return per_token * static_cast<double>(tokens);
}

// The sampler half: logits of max_num_seqs rows over the whole vocabulary (gathered on every
// rank) and the sampler's temporaries: the version's bytes per row and entry (39 while top-k/top-p
// sorted the whole vocabulary, 15.4 from 0.17; 14 with FlashInfer's sampler, --flashinfer-sampler;
// data/vllm_profiles.json).
double ProfileSamplerBytes(const Architecture& arch, int64_t seqs, const VllmProfileRule& rule) {
  return rule.sampler_bytes_per_vocab_entry * static_cast<double>(arch.vocab) * static_cast<double>(seqs);
}

std::string FormatUtilization(double u) { return fmt::format("{:g}", u); }

int64_t RoundDownToBlock(int64_t tokens, int64_t block) { return tokens / block * block; }

// What vLLM V1 reserves for one request of `len` tokens when it checks that one fits and when it
// computes the concurrency (vLLM 0.11, vllm/v1/kv_cache_interface.py, max_memory_usage_bytes):
// a full-attention layer cdiv(len, block) blocks; a sliding-window layer the window plus one chunk
// of prefill, cdiv(min(window - 1 + max_num_batched_tokens, len), block) + 1 blocks, since chunked
// prefill allocates the new chunk before it frees what left the window. A chunked-attention layer
// (Llama 4) cdiv(min(attention_chunk_size + max_num_batched_tokens, len), block) blocks
// (ChunkedLocalAttentionSpec, the same file; read at vLLM commit 001cabc1be16).
double VllmRequestBytes(const Architecture& arch, int64_t len, double dtype_bytes, int tp, int64_t batched_tokens, int64_t block) {
  const KvCache shape = ComputeKvCache(arch, {1, 1, dtype_bytes, tp});
  const double per_layer_token = static_cast<double>(shape.values_per_layer_token_per_gpu) * dtype_bytes;
  // Mamba layers hold their state whatever the length.
  double bytes = shape.state_bytes_per_sequence_per_gpu;
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    if (!arch.HasAttention(layer)) continue;
    const int64_t window = arch.WindowOf(layer), chunk = arch.ChunkOf(layer);
    int64_t blocks = (len + block - 1) / block;
    if (window > 0) blocks = (std::min(window - 1 + batched_tokens, len) + block - 1) / block + 1;
    // ChunkedLocalAttentionSpec.max_memory_usage_bytes: the chunk plus one batch, no extra block.
    if (chunk > 0) blocks = (std::min(chunk + batched_tokens, len) + block - 1) / block;
    bytes += static_cast<double>(blocks * block) * per_layer_token;
  }
  return bytes;
}

// The longest max_model_len up to `limit` whose request (`request_bytes(len)`) fits `room`, as
// vLLM's estimate_max_model_len finds it by bisection.
template <typename RequestBytes>
int64_t LongestFittingLen(double room, int64_t limit, const RequestBytes& request_bytes) {
  int64_t lo = 0, hi = limit;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (request_bytes(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::optional<ServeQuant> ParseServeQuant(const std::string& text) {
  if (text == "bf16") return ServeQuant::Bf16;
  if (text == "int8") return ServeQuant::Int8;
  if (text == "int4") return ServeQuant::Int4;
  return std::nullopt;
}

const char* ServeQuantName(ServeQuant quant) {
  switch (quant) {
    case ServeQuant::Bf16: return "bf16";
    case ServeQuant::Int8: return "int8";
    case ServeQuant::Int4: return "int4";
    case ServeQuant::Checkpoint: return "checkpoint";
  }
  return "?";
}

BatchDefaults VllmBatchDefaults(double gpu_memory_gib, const std::string& gpu_name, const CalcConstants& k) {
  const bool large = gpu_memory_gib >= k.vllm_large_gpu_min_gib && Lower(gpu_name).find("a100") == std::string::npos;
  return large ? BatchDefaults{k.vllm_large_max_num_batched_tokens, k.vllm_large_max_num_seqs}
               : BatchDefaults{k.vllm_max_num_batched_tokens, k.vllm_max_num_seqs};
}

namespace {
// Bits per quantised weight of --quant int8|int4 (the constants' AWQ/GPTQ-style group scheme).
double QuantisedServeBits(ServeQuant quant, const CalcConstants& k) { return (quant == ServeQuant::Int8 ? k.int8 : k.int4).EffectiveBits(); }
}  // namespace

double ServingWeightBytes(const ModelInput& model, ServeQuant quant, const CalcConstants& k) {
  const double n = static_cast<double>(model.total_params());
  if (quant == ServeQuant::Checkpoint && model.arch) return CountCheckpointWeights(*model.counts(), model.arch->quant).bytes;
  if (quant == ServeQuant::Bf16 || quant == ServeQuant::Checkpoint) return n * kBf16;
  const double bits = QuantisedServeBits(quant, k);
  const std::optional<ParamCounts> counts = model.counts();
  // Without the architecture every parameter is taken as quantised (the seed's table does so).
  const double quantized = counts ? static_cast<double>(counts->quantizable()) : n;
  return quantized * bits / 8 + (n - quantized) * kBf16;
}

double ServingExpertWeightBytes(const ModelInput& model, ServeQuant quant, const CalcConstants& k) {
  const std::optional<ParamCounts> counts = model.counts();
  if (!counts || counts->routed_experts == 0) return 0;
  const double experts = static_cast<double>(counts->routed_experts);
  // Every quantiser here quantises the experts (MXFP4 nothing else); a checkpoint without a
  // quantization_config is served in BF16.
  if (quant == ServeQuant::Checkpoint && model.arch->quant.enabled()) return experts * model.arch->quant.EffectiveBits() / 8;
  if (quant == ServeQuant::Int8 || quant == ServeQuant::Int4) return experts * QuantisedServeBits(quant, k) / 8;
  return experts * kBf16;
}

double MarlinMxfp4ExpertPadding(const Architecture& arch, const ServeSettings& s, int64_t intermediate_split) {
  const bool marlin = s.quant == ServeQuant::Checkpoint && arch.quant.name == "mxfp4" && arch.moe.enabled() &&
                      s.gpu_cc_major > 0 && s.gpu_cc_major < 9;
  if (!marlin || intermediate_split < 1) return 1.0;
  const auto round_up = [](int64_t x, int64_t to) { return (x + to - 1) / to * to; };
  const int64_t intermediate = (arch.moe.expert_intermediate + intermediate_split - 1) / intermediate_split;
  // gate_up (2 x intermediate by hidden) and down (hidden by intermediate), weights and block scales alike.
  return static_cast<double>(round_up(intermediate, 128) * round_up(arch.hidden, 256)) /
         static_cast<double>(intermediate * arch.hidden);
}

Status CheckTensorParallel(const Architecture& arch, int tp, Lang lang) {
  if (arch.heads % tp != 0) {
    return Status::Error(T(fmt::format("tensor parallel {} не делит {} голов внимания: vLLM откажется запускаться "
                                       "(«Total number of attention heads must be divisible by tensor parallel size»)", tp, arch.heads),
                           fmt::format("tensor parallel {} does not divide the {} attention heads: vLLM refuses to start "
                                       "(\"Total number of attention heads must be divisible by tensor parallel size\")", tp, arch.heads)).In(lang));
  }
  if (arch.kv_heads % tp != 0 && tp % arch.kv_heads != 0) {
    return Status::Error(T(fmt::format("tensor parallel {} не делит {} KV-голов и не кратен им: vLLM не может ни поделить, ни размножить их", tp, arch.kv_heads),
                           fmt::format("tensor parallel {} neither divides the {} KV heads nor is a multiple of them: vLLM can neither split nor replicate them", tp, arch.kv_heads)).In(lang));
  }
  return Status::Ok();
}

namespace {

// A hybrid with state layers: the pool of equal pages vLLM builds (vllm_hybrid_pages.h), the tokens
// and concurrency it prints, and whether one request of max_model_len fits; if not, the longest
// that would (estimate_max_model_len's bisection over the same sum).
void FitHybridPool(TpOption& o, const HybridPages& pages, const ServePlan& plan) {
  const HybridPool pool = VllmHybridPool(pages, o.kv_room_per_gpu, plan.max_model_len);
  o.hybrid_pages = pages;
  o.kv_tokens = pool.tokens;
  o.vllm_concurrency = pool.concurrency;
  o.max_concurrency = static_cast<int64_t>(pool.concurrency);
  o.fits = o.heads_divide && o.kv_room_per_gpu >= HybridRequestBytes(pages, plan.max_model_len);
  if (!o.heads_divide || o.fits || o.kv_room_per_gpu <= 0) return;
  o.longest_fitting_len = LongestFittingLen(o.kv_room_per_gpu, plan.max_model_len,
                                            [&](int64_t len) { return HybridRequestBytes(pages, len); });
}

// The KV cache in one tp option's room: tokens, sequences at once, and whether one sequence of
// max_model_len fits; if not, the longest that would.
void FitKvCache(TpOption& o, const Architecture& arch, const ServeSettings& s, const ServePlan& plan, int64_t block) {
  if (const std::optional<HybridPages> pages = VllmHybridPages(arch, o.tp, s.kv_dtype_bytes, plan.kv_slots, block)) {
    FitHybridPool(o, *pages, plan);
    return;
  }
  KvSettings kv{plan.max_model_len, 1, s.kv_dtype_bytes, o.tp};
  const KvCache one = ComputeKvCache(arch, kv);
  // vLLM splits the room into blocks of 16 tokens of every layer slot (padding layers of the hybrid
  // manager included) and reports whole blocks.
  const double slot_token_bytes = static_cast<double>(one.values_per_layer_token_per_gpu) * s.kv_dtype_bytes;
  const double token_bytes = slot_token_bytes * static_cast<double>(plan.kv_slots.slots);
  const int64_t raw = o.kv_room_per_gpu > 0 && token_bytes > 0 ? static_cast<int64_t>(o.kv_room_per_gpu / token_bytes) : 0;
  o.kv_tokens = RoundDownToBlock(raw, block);
  const double seq_bytes = VllmRequestBytes(arch, plan.max_model_len, s.kv_dtype_bytes, o.tp, plan.max_num_batched_tokens, block);
  o.max_concurrency = seq_bytes > 0 && o.kv_room_per_gpu > 0 ? static_cast<int64_t>(o.kv_room_per_gpu / seq_bytes) : 0;
  o.fits = o.heads_divide && o.kv_room_per_gpu >= seq_bytes;
  if (o.heads_divide && !o.fits && o.kv_room_per_gpu > 0) {
    o.longest_fitting_len = LongestFittingLen(o.kv_room_per_gpu, plan.max_model_len, [&](int64_t len) {
      return VllmRequestBytes(arch, len, s.kv_dtype_bytes, o.tp, plan.max_num_batched_tokens, block);
    });
  }
}

// One row of the table: what a card holds at this tensor-parallel degree and what is left for KV.
TpOption PlanTp(const ModelInput& model, const ServeSettings& s, const ServePlan& plan, int tp, const CalcConstants& k) {
  TpOption o;
  o.tp = tp;
  // Without the architecture the head count is unknown; nearly every model has a power of two.
  o.heads_divide = model.arch ? CheckTensorParallel(*model.arch, tp, Lang::En).ok() : (tp & (tp - 1)) == 0;
  // vLLM shards every linear layer and the vocabulary over tp; norms (negligible) are replicated.
  // With expert parallelism the routed experts are spread over the tp x dp GPUs of the EP group.
  const bool ep = s.expert_parallel && s.data_parallel > 1;
  const double expert_ranks = ep ? static_cast<double>(tp) * s.data_parallel : tp;
  const double expert_padding = model.arch ? MarlinMxfp4ExpertPadding(*model.arch, s, ep ? 1 : tp) : 1.0;
  o.weights_per_gpu = (plan.weights_bytes - plan.expert_weights_bytes) / tp + plan.expert_weights_bytes / expert_ranks * expert_padding;
  const VllmProfileRule& rule = s.profile.rule;
  // No log with data parallelism was checked: its all-to-all buffers are taken as TP > 1's figure.
  o.non_torch_per_gpu = (tp > 1 || ep ? rule.non_torch_tp_gib : rule.non_torch_gib) * kBytesPerGiB;
  o.budget_per_gpu = s.utilization * s.gpu_memory_gib * kBytesPerGiB;
  if (model.arch) {
    // Forward and sampler run one after the other: the peak is the larger of the two.
    o.activation_peak_per_gpu = std::max(ProfileForwardBytes(*model.arch, tp, plan.max_num_batched_tokens),
                                         ProfileSamplerBytes(*model.arch, plan.max_num_seqs, rule));
  }
  o.kv_room_per_gpu = o.budget_per_gpu - o.weights_per_gpu - o.activation_peak_per_gpu.value_or(0) - o.non_torch_per_gpu;
  // Where the version profiles the CUDA graphs first, they come out of the budget too.
  if (rule.cuda_graphs_in_budget) o.kv_room_per_gpu -= plan.cuda_graph_bytes;
  if (model.arch) {
    FitKvCache(o, *model.arch, s, plan, k.vllm_block_size);
  } else {
    o.fits = o.heads_divide && o.kv_room_per_gpu >= k.serve_min_kv_cache_gib * kBytesPerGiB;
  }
  return o;
}

// Nothing fits at max_model_len: the widest tp that holds a shorter length, as vLLM suggests it.
void SuggestShorterLength(ServePlan& plan) {
  for (auto it = plan.options.rbegin(); it != plan.options.rend(); ++it) {
    if (it->longest_fitting_len && *it->longest_fitting_len > 0) {
      plan.suggested_tp = it->tp;
      plan.suggested_max_model_len = it->longest_fitting_len;
      return;
    }
  }
}

// `vllm serve` with the flags that make the plan hold at `tp` and `len` (0: no --max-model-len).
std::string VllmCommand(const ModelInput& model, const ServeSettings& s, const ServePlan& plan, int tp, int64_t len) {
  const std::string repo = model.hf_repo.empty() ? "<model>" : model.hf_repo;
  // The hybrid KV cache manager, which the chunked layers' figures assume, needs this with chunked
  // attention (vllm/config/vllm.py disables it otherwise where the variable defaults to 0).
  const bool chunked = model.arch && model.arch->ChunkedLayerCount() > 0;
  // The plan charged FlashInfer's sampler: the variable makes vLLM take it where it is opt-in
  // (0.11.1 to 0.19); the current topk_topp_sampler.py then refuses to start without FlashInfer.
  const std::string env = std::string(chunked ? "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 " : "") +
                          (s.profile.flashinfer_sampler ? "VLLM_USE_FLASHINFER_SAMPLER=1 " : "");
  std::string command = fmt::format("{}vllm serve {}", env, s.quant == ServeQuant::Int4 ? "<AWQ/GPTQ checkpoint of " + repo + ">" : repo);
  if (tp > 1) command += fmt::format(" --tensor-parallel-size {}", tp);
  if (s.data_parallel > 1) command += fmt::format(" --data-parallel-size {}", s.data_parallel);
  if (s.expert_parallel) command += " --enable-expert-parallel";
  command += " --gpu-memory-utilization " + FormatUtilization(s.utilization);
  if (len > 0) command += fmt::format(" --max-model-len {}", len);
  if (s.max_num_seqs > 0) command += fmt::format(" --max-num-seqs {}", s.max_num_seqs);
  if (s.max_num_batched_tokens > 0) command += fmt::format(" --max-num-batched-tokens {}", s.max_num_batched_tokens);
  if (s.enforce_eager) command += " --enforce-eager";
  // The hybrid page figures are those without prefix caching (one state page per request); vLLM
  // 0.10.2-0.11.0 turn it off for hybrids themselves, later versions cache states when it is on.
  if (plan.kv_slots.state_groups > 0) command += " --no-enable-prefix-caching";
  if (s.quant == ServeQuant::Int8) command += " --quantization fp8";
  if (s.kv_dtype_bytes == 1) command += " --kv-cache-dtype fp8";
  return command;
}

// What the quantisation, or a bare size, means for the figures.
Text ServeNote(const ModelInput& model, const ServeSettings& s, const CalcConstants& k) {
  Text note;
  if (s.quant == ServeQuant::Checkpoint && model.arch && model.arch->quant.enabled()) {
    note = CheckpointQuantText(model.arch->quant);
  } else if (s.quant == ServeQuant::Int4) {
    note = T("4 бита: vLLM берёт готовый AWQ/GPTQ-чекпойнт (группа 128, ~4.16 бита на вес); эмбеддинги и lm_head остаются в BF16.",
             "4-bit: vLLM loads a ready AWQ/GPTQ checkpoint (group 128, ~4.16 bits per weight); embeddings and lm_head stay BF16.");
  } else if (s.quant == ServeQuant::Int8) {
    note = T("8 бит: --quantization fp8 квантует веса при загрузке (на Ada/Hopper — FP8-ядра, на Ampere — только веса).",
             "8-bit: --quantization fp8 quantises weights on load (FP8 kernels on Ada/Hopper, weight-only on Ampere).");
  }
  if (!model.arch) {
    note = T(fmt::format("Только размер: KV-кэш на токен и активации профиля не посчитать без архитектуры; «влезает» значит, "
                         "что на KV-кэш остаётся не меньше {:g} GiB. {}", k.serve_min_kv_cache_gib, note.ru),
             fmt::format("Size only: KV cache per token and the profile's activations need the architecture; 'fits' means at "
                         "least {:g} GiB are left for the KV cache. {}", k.serve_min_kv_cache_gib, note.en));
  }
  return note;
}

}  // namespace

ServePlan PlanServing(const ModelInput& model, const ServeSettings& s, const CalcConstants& k) {
  ServePlan plan;
  plan.weights_bytes = ServingWeightBytes(model, s.quant, k);
  plan.expert_weights_bytes = ServingExpertWeightBytes(model, s.quant, k);
  plan.data_parallel = std::max(1, s.data_parallel);
  const BatchDefaults defaults = VllmBatchDefaults(s.gpu_memory_gib, s.gpu_name, k);
  plan.max_num_seqs = s.max_num_seqs > 0 ? s.max_num_seqs : defaults.max_num_seqs;
  plan.max_num_batched_tokens = s.max_num_batched_tokens > 0 ? s.max_num_batched_tokens : defaults.max_num_batched_tokens;
  plan.max_num_seqs_defaulted = s.max_num_seqs <= 0;
  plan.max_num_batched_tokens_defaulted = s.max_num_batched_tokens <= 0;
  plan.cuda_graph_bytes = s.enforce_eager ? 0 : k.vllm_cuda_graph_gib * kBytesPerGiB;
  if (model.arch) {
    plan.max_model_len = s.max_model_len > 0 ? s.max_model_len : model.arch->max_context;
    plan.kv_slots = HybridKvLayerSlots(*model.arch, s.profile.rule.hybrid_kv_groups);
  }
  // Each of the dp replicas takes tp GPUs.
  for (int tp = 1; tp <= std::max(1, s.gpus / plan.data_parallel); ++tp) {
    plan.options.push_back(PlanTp(model, s, plan, tp, k));
    if (plan.options.back().fits && !plan.chosen_tp) plan.chosen_tp = tp;
  }
  if (!plan.chosen_tp) SuggestShorterLength(plan);
  if (plan.chosen_tp) {
    plan.vllm_command = VllmCommand(model, s, plan, *plan.chosen_tp, plan.max_model_len);
  } else if (plan.suggested_tp) {
    plan.vllm_command = VllmCommand(model, s, plan, *plan.suggested_tp, *plan.suggested_max_model_len);
  }
  // Each other degree that fails on the length alone: the length it holds, as vLLM's error for it
  // would estimate, and its command (the lesson's "70B in 4 bits on 2 cards" at a shorter length).
  for (const TpOption& o : plan.options) {
    if (!o.longest_fitting_len || *o.longest_fitting_len <= 0 || plan.suggested_tp == o.tp) continue;
    if (plan.chosen_tp && o.tp > *plan.chosen_tp) continue;
    plan.shorter_lengths.push_back({o.tp, *o.longest_fitting_len, VllmCommand(model, s, plan, o.tp, *o.longest_fitting_len)});
  }
  plan.note = ServeNote(model, s, k);
  return plan;
}

namespace {
// vLLM's page layout for a hybrid with state layers, and the concurrency it prints.
nlohmann::json HybridPagesJson(const HybridPages& p, double concurrency) {
  return {{"attention_block_tokens", p.block_tokens},
          {"page_bytes", p.page_bytes},
          {"state_bytes_per_layer", p.state_bytes},
          {"state_padding_percent", p.state_padding_percent()},
          {"group_size", p.group_size},
          {"attention_groups", p.attention_groups},
          {"state_groups", p.state_groups},
          {"vllm_max_concurrency", concurrency}};
}
}  // namespace

nlohmann::json ServePlanJson(const ServePlan& plan, const ServeSettings& s) {
  nlohmann::json options = nlohmann::json::array();
  for (const TpOption& o : plan.options) {
    options.push_back({{"tp", o.tp},
                       {"heads_divide", o.heads_divide},
                       {"weights_per_gpu", BytesJson(o.weights_per_gpu)},
                       {"activation_peak_per_gpu", o.activation_peak_per_gpu ? BytesJson(*o.activation_peak_per_gpu) : nlohmann::json(nullptr)},
                       {"non_torch_per_gpu", BytesJson(o.non_torch_per_gpu)},
                       {"budget_per_gpu", BytesJson(o.budget_per_gpu)},
                       {"kv_room_per_gpu", BytesJson(o.kv_room_per_gpu)},
                       {"kv_tokens", o.kv_tokens ? nlohmann::json(*o.kv_tokens) : nlohmann::json(nullptr)},
                       {"max_concurrency", o.max_concurrency ? nlohmann::json(*o.max_concurrency) : nlohmann::json(nullptr)},
                       {"longest_fitting_max_model_len", o.longest_fitting_len ? nlohmann::json(*o.longest_fitting_len) : nlohmann::json(nullptr)},
                       {"fits", o.fits}});
    if (o.hybrid_pages) options.back()["hybrid_pages"] = HybridPagesJson(*o.hybrid_pages, *o.vllm_concurrency);
  }
  const VllmProfileChoice& p = s.profile;
  const nlohmann::json profile = {{"vllm_version", p.version.text},
                                  {"rule", p.rule.id},
                                  {"version_checked_against_logs", p.checked},
                                  {"sampler", p.flashinfer_sampler ? "flashinfer" : "pytorch"},
                                  {"sampler_bytes_per_vocab_entry", p.rule.sampler_bytes_per_vocab_entry},
                                  {"non_torch_gib", p.rule.non_torch_gib},
                                  {"non_torch_tp_gib", p.rule.non_torch_tp_gib},
                                  {"hybrid_kv_groups", p.rule.hybrid_kv_groups},
                                  {"cuda_graphs_in_budget", p.rule.cuda_graphs_in_budget}};
  nlohmann::json shorter = nlohmann::json::array();
  for (const ShorterLength& l : plan.shorter_lengths) {
    shorter.push_back({{"tensor_parallel_size", l.tp}, {"max_model_len", l.max_model_len}, {"vllm_command", l.vllm_command}});
  }
  return {{"quant", ServeQuantName(s.quant)},
          {"vllm_profile", profile},
          {"kv_layer_slots", {{"attention_layers", plan.kv_slots.attention_layers},
                              {"slots", plan.kv_slots.slots},
                              {"group_size", plan.kv_slots.group_size},
                              {"groups", plan.kv_slots.groups}}},
          {"gpus", s.gpus},
          {"data_parallel_size", plan.data_parallel},
          {"enable_expert_parallel", s.expert_parallel},
          {"expert_weights", BytesJson(plan.expert_weights_bytes)},
          {"gpu_memory_gib", s.gpu_memory_gib},
          {"utilization", s.utilization},
          {"max_num_seqs", plan.max_num_seqs},
          {"max_num_batched_tokens", plan.max_num_batched_tokens},
          {"batch_defaults_taken", plan.batch_defaults_taken()},
          {"enforce_eager", s.enforce_eager},
          {"cuda_graphs_per_gpu", BytesJson(plan.cuda_graph_bytes)},
          {"weights", BytesJson(plan.weights_bytes)},
          {"max_model_len", plan.max_model_len > 0 ? nlohmann::json(plan.max_model_len) : nlohmann::json(nullptr)},
          {"options", options},
          {"fits", plan.chosen_tp.has_value()},
          {"tensor_parallel_size", plan.chosen_tp ? nlohmann::json(*plan.chosen_tp) : nlohmann::json(nullptr)},
          {"suggested", plan.suggested_tp ? nlohmann::json({{"tensor_parallel_size", *plan.suggested_tp},
                                                            {"max_model_len", *plan.suggested_max_model_len}})
                                          : nlohmann::json(nullptr)},
          {"vllm_command", plan.vllm_command.empty() ? nlohmann::json(nullptr) : nlohmann::json(plan.vllm_command)},
          {"at_shorter_max_model_len", shorter},
          {"note", plan.note.In(Lang::En)}};
}

}  // namespace labcheck::calc
