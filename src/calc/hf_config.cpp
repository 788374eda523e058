#include "calc/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace labcheck::calc {
namespace {

using nlohmann::json;

// Field access that records the first problem instead of throwing.
class FieldReader {
 public:
  FieldReader(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  int64_t Required(const char* name) {
    if (auto value = Optional(name)) return *value;
    Fail(fmt::format("missing field \"{}\"{}", name, where_));
    return 0;
  }
  std::optional<int64_t> Optional(const char* name) {
    auto it = object_.find(name);
    if (it == object_.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_integer() && !it->is_number_unsigned()) {
      Fail(fmt::format("field \"{}\"{} should be an integer, found {}", name, where_, it->dump()));
      return std::nullopt;
    }
    const int64_t value = it->get<int64_t>();
    if (value < 0) Fail(fmt::format("field \"{}\"{} is negative ({})", name, where_, value));
    return value;
  }
  std::optional<bool> Bool(const char* name) {
    auto it = object_.find(name);
    if (it == object_.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) {
      Fail(fmt::format("field \"{}\"{} should be true or false, found {}", name, where_, it->dump()));
      return std::nullopt;
    }
    return it->get<bool>();
  }
  std::string String(const char* name) {
    auto it = object_.find(name);
    return it != object_.end() && it->is_string() ? it->get<std::string>() : std::string();
  }
  const json* Find(const char* name) const {
    auto it = object_.find(name);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }
  void Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }
  const std::string& error() const { return error_; }

 private:
  const json& object_;
  std::string where_;
  std::string error_;
};

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Which layers attend to a window, in order of precedence:
//  1. "layer_types": ["sliding_attention", "full_attention", ...] (transformers >= 4.53);
//  2. "use_sliding_window": false turns the window off (Qwen2/3 carry an unused sliding_window);
//  3. "sliding_window_pattern": N — every N-th layer is global (Gemma 3: 5 local, 1 global);
//  4. Gemma 2 alternates local and global layers;
//  5. otherwise a sliding_window applies to every layer (Mistral 7B v0.1).
void ReadWindows(FieldReader& r, const std::string& model_type, Architecture& arch) {
  arch.window_per_layer.assign(static_cast<size_t>(arch.layers), 0);
  const std::optional<int64_t> window = r.Optional("sliding_window");
  if (const json* types = r.Find("layer_types")) {
    if (!types->is_array() || static_cast<int64_t>(types->size()) != arch.layers) {
      r.Fail(fmt::format("field \"layer_types\" should list {} layers", arch.layers));
      return;
    }
    for (int64_t i = 0; i < arch.layers; ++i) {
      const json& t = (*types)[static_cast<size_t>(i)];
      if (t.is_string() && t.get<std::string>() == "sliding_attention") {
        if (!window) {
          r.Fail("field \"sliding_window\" is missing but \"layer_types\" has sliding layers");
          return;
        }
        arch.window_per_layer[static_cast<size_t>(i)] = *window;
      }
    }
    return;
  }
  if (!window || *window == 0) return;
  if (auto use = r.Bool("use_sliding_window"); use.has_value() && !*use) return;
  int64_t pattern = r.Optional("sliding_window_pattern").value_or(0);
  if (pattern == 0 && model_type == "gemma2") pattern = 2;
  for (int64_t i = 0; i < arch.layers; ++i) {
    const bool global = pattern > 0 && (i + 1) % pattern == 0;
    if (!global) arch.window_per_layer[static_cast<size_t>(i)] = *window;
  }
}

void ReadMoe(FieldReader& r, Architecture& arch) {
  // Qwen-MoE says num_experts, Mixtral num_local_experts, DeepSeek n_routed_experts.
  arch.moe.experts = r.Optional("num_experts").value_or(
      r.Optional("num_local_experts").value_or(r.Optional("n_routed_experts").value_or(0)));
  if (arch.moe.experts == 0) return;
  arch.moe.experts_per_token = r.Required("num_experts_per_tok");
  arch.moe.expert_intermediate = r.Optional("moe_intermediate_size").value_or(arch.intermediate);
  if (auto qwen_shared = r.Optional("shared_expert_intermediate_size"); qwen_shared && *qwen_shared > 0) {
    arch.moe.shared_expert_intermediate = *qwen_shared;
    arch.moe.shared_expert_gate = true;
  } else if (auto deepseek_shared = r.Optional("n_shared_experts"); deepseek_shared && *deepseek_shared > 0) {
    // DeepseekV2MoE builds its shared experts as one MLP of n_shared_experts x moe_intermediate_size.
    arch.moe.shared_experts = *deepseek_shared;
    arch.moe.shared_expert_intermediate = *deepseek_shared * arch.moe.expert_intermediate;
  }
  arch.moe.router_score_bias = r.String("topk_method") == "noaux_tc";
  arch.moe.sparse_step = r.Optional("decoder_sparse_step").value_or(1);
  arch.moe.first_dense_layers = r.Optional("first_k_dense_replace").value_or(0);
  arch.moe.layer_freq = std::max<int64_t>(1, r.Optional("moe_layer_freq").value_or(r.Optional("expert_layer_period").value_or(1)));
  arch.moe.layer_offset = r.Optional("expert_layer_offset").value_or(0);
  if (const json* dense = r.Find("mlp_only_layers"); dense && dense->is_array()) {
    for (const json& layer : *dense) {
      if (layer.is_number_integer()) arch.moe.dense_layers.push_back(layer.get<int64_t>());
    }
  }
  if (arch.moe.experts_per_token > arch.moe.experts) {
    r.Fail(fmt::format("num_experts_per_tok ({}) exceeds the number of experts ({})",
                       arch.moe.experts_per_token, arch.moe.experts));
  }
}

// Multi-head latent attention: kv_lora_rank marks it (DeepSeek-V2/V3 and their derivatives).
void ReadLatentAttention(FieldReader& r, Architecture& arch) {
  const std::optional<int64_t> kv_lora_rank = r.Optional("kv_lora_rank");
  if (!kv_lora_rank || *kv_lora_rank == 0) return;
  LatentAttention& m = arch.mla;
  m.kv_lora_rank = *kv_lora_rank;
  m.q_lora_rank = r.Optional("q_lora_rank").value_or(0);  // null in DeepSeek-V2-Lite
  m.qk_nope_head_dim = r.Required("qk_nope_head_dim");
  m.qk_rope_head_dim = r.Required("qk_rope_head_dim");
  m.v_head_dim = r.Required("v_head_dim");
  // Every head has its own query/key of nope + rope values (the rope key is shared); the
  // decompressed keys and values are per head, so kv_heads is the head count.
  arch.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  arch.kv_heads = arch.heads;
}

void ReadVision(const json& config, Architecture& arch, FieldReader& errors) {
  auto it = config.find("vision_config");
  if (it == config.end() || !it->is_object()) return;
  FieldReader v(*it, " in vision_config");
  arch.vision.hidden = v.Required("hidden_size");
  arch.vision.intermediate = v.Required("intermediate_size");
  arch.vision.layers = v.Required("num_hidden_layers");
  arch.vision.patch_size = v.Required("patch_size");
  arch.vision.image_size = v.Required("image_size");
  arch.vision.channels = v.Optional("num_channels").value_or(3);
  if (v.String("model_type") == "llama4_vision_model") {
    // Llama4VisionModel: its pixel-shuffle adapter and the projector into the text model.
    arch.vision.kind = VisionKind::Llama4;
    arch.vision.projector_input_dim = v.Required("projector_input_dim");
    arch.vision.projector_output_dim = v.Required("projector_output_dim");
    arch.vision.vision_output_dim = v.Required("vision_output_dim");
  }
  if (!v.error().empty()) errors.Fail(v.error());
}

// Llama 4 (transformers modeling_llama4.py, Llama4TextConfig): intermediate_size is the width of
// each expert and of the one shared expert, intermediate_size_mlp that of the dense layers; every
// interleave_moe_layer_step-th layer is MoE (layer i when (i + 1) % step == 0, Qwen's rule), unless
// moe_layers lists them. Chunked attention: vLLM's Llama4Attention uses ChunkedLocalAttention of
// attention_chunk_size tokens in the layers with RoPE and full attention in the NoPE layers, where
// no_rope_layers[i] == 0; absent or empty, every no_rope_layer_interval-th layer (default 4) is NoPE,
// as Llama4TextConfig fills it in.
void ReadLlama4(FieldReader& r, Architecture& arch) {
  if (!StartsWith(arch.model_type, "llama4")) return;
  if (arch.moe.enabled()) {
    arch.moe.shared_expert_intermediate = arch.moe.expert_intermediate;
    arch.moe.sparse_step = std::max<int64_t>(1, r.Optional("interleave_moe_layer_step").value_or(1));
    if (const json* listed = r.Find("moe_layers"); listed && listed->is_array()) {
      arch.moe.sparse_step = 1;
      for (int64_t i = 0; i < arch.layers; ++i) {
        if (std::find(listed->begin(), listed->end(), json(i)) == listed->end()) arch.moe.dense_layers.push_back(i);
      }
    }
  }
  arch.intermediate = r.Optional("intermediate_size_mlp").value_or(arch.intermediate);
  const std::optional<int64_t> chunk = r.Optional("attention_chunk_size");
  if (!chunk || *chunk == 0) return;
  const json* no_rope = r.Find("no_rope_layers");
  const bool listed = no_rope && no_rope->is_array() && !no_rope->empty();
  if (listed && static_cast<int64_t>(no_rope->size()) != arch.layers) {
    r.Fail(fmt::format("field \"no_rope_layers\" should list {} layers", arch.layers));
    return;
  }
  const int64_t interval = std::max<int64_t>(1, r.Optional("no_rope_layer_interval").value_or(4));
  arch.chunk_per_layer.assign(static_cast<size_t>(arch.layers), 0);
  for (int64_t i = 0; i < arch.layers; ++i) {
    const bool nope = listed ? (*no_rope)[static_cast<size_t>(i)] == json(0) : (i + 1) % interval == 0;
    if (!nope) arch.chunk_per_layer[static_cast<size_t>(i)] = *chunk;
  }
}

// Jamba: attention in layer i when i % attn_layer_period == attn_layer_offset, Mamba elsewhere.
void ReadMamba(FieldReader& r, Architecture& arch) {
  const std::optional<int64_t> period = r.Optional("attn_layer_period");
  if (!period || *period == 0 || !r.Find("mamba_d_state")) return;
  const int64_t offset = r.Optional("attn_layer_offset").value_or(0);
  MambaLayers& m = arch.mamba;
  m.per_layer.assign(static_cast<size_t>(arch.layers), false);
  for (int64_t i = 0; i < arch.layers; ++i) m.per_layer[static_cast<size_t>(i)] = i % *period != offset;
  m.d_state = r.Required("mamba_d_state");
  m.d_conv = r.Required("mamba_d_conv");
  m.expand = r.Required("mamba_expand");
  // "auto" in transformers' JambaConfig means ceil(hidden / 16).
  const json* dt_rank = r.Find("mamba_dt_rank");
  m.dt_rank = dt_rank && dt_rank->is_number_integer() ? dt_rank->get<int64_t>() : (arch.hidden + 15) / 16;
  m.conv_bias = r.Bool("mamba_conv_bias").value_or(true);
  m.proj_bias = r.Bool("mamba_proj_bias").value_or(false);
}

// Qwen3-Next (transformers Qwen3NextConfig): Gated DeltaNet linear attention in every layer that
// layer_types calls "linear_attention", or, without layer_types, in all but every
// full_attention_interval-th layer; the full-attention layers gate their output (q_proj twice as wide).
void ReadGatedDeltaNet(FieldReader& r, Architecture& arch) {
  if (!r.Find("linear_num_value_heads")) return;
  MambaLayers& m = arch.mamba;
  m.kind = StateLayerKind::GatedDeltaNet;
  m.per_layer.assign(static_cast<size_t>(arch.layers), false);
  const json* types = r.Find("layer_types");
  if (types && (!types->is_array() || static_cast<int64_t>(types->size()) != arch.layers)) {
    r.Fail(fmt::format("field \"layer_types\" should list {} layers", arch.layers));
    return;
  }
  const int64_t interval = std::max<int64_t>(1, r.Optional("full_attention_interval").value_or(4));
  for (int64_t i = 0; i < arch.layers; ++i) {
    m.per_layer[static_cast<size_t>(i)] = types ? (*types)[static_cast<size_t>(i)] == json("linear_attention") : (i + 1) % interval != 0;
  }
  m.key_heads = r.Required("linear_num_key_heads");
  m.value_heads = r.Required("linear_num_value_heads");
  m.key_head_dim = r.Required("linear_key_head_dim");
  m.value_head_dim = r.Required("linear_value_head_dim");
  m.d_conv = r.Required("linear_conv_kernel_dim");
  arch.attn_output_gate = r.Bool("attn_output_gate").value_or(arch.model_type == "qwen3_next");
}

// Nemotron 3's 'E' blocks (vLLM nemotron_h.py NemotronHMoE, transformers NemotronHMOE): a router of
// n_routed_experts (hidden -> experts, with DeepSeek-V3's e_score_correction_bias), experts of
// moe_intermediate_size and one shared MLP of moe_shared_expert_intermediate_size x n_shared_experts,
// all squared-ReLU MLPs with up and down projections only. The latent MoE of larger Nemotron 3
// models (moe_latent_size: experts computed in a smaller width) is refused by name.
void ReadNemotronMoe(FieldReader& r, Architecture& arch) {
  if (!arch.moe.enabled()) {
    r.Fail("field \"hybrid_override_pattern\" has MoE blocks (E) but the config has no n_routed_experts");
    return;
  }
  if (const json* latent = r.Find("moe_latent_size"); latent && !latent->is_null()) {
    r.Fail("field \"moe_latent_size\" is set: the latent MoE blocks (experts in a smaller width) are not modelled");
    return;
  }
  const int64_t shared = r.Optional("n_shared_experts").value_or(0);
  arch.moe.shared_experts = shared;
  arch.moe.shared_expert_intermediate = shared > 0 ? shared * r.Required("moe_shared_expert_intermediate_size") : 0;
  arch.moe.router_score_bias = true;
}

// mamba_ssm_cache_dtype (Nemotron-H configs): vLLM's NemotronHForCausalLMConfig takes it as the
// SSM state's dtype when --mamba-ssm-cache-dtype is left at "auto".
void ReadSsmCacheDtype(FieldReader& r, MambaLayers& m) {
  const std::string dtype = r.String("mamba_ssm_cache_dtype");
  if (dtype.empty()) return;
  if (dtype == "float32") m.ssm_state_value_bytes = 4;
  else if (dtype == "bfloat16" || dtype == "float16") m.ssm_state_value_bytes = 2;
  else r.Fail(fmt::format("field \"mamba_ssm_cache_dtype\" is \"{}\": expected float32, bfloat16 or float16", dtype));
}

// Nemotron-H (modeling_nemotron_h.py): hybrid_override_pattern gives each layer one block, 'M' a
// Mamba-2 mixer, '*' attention, '-' a squared-ReLU MLP (up and down only), 'E' a MoE block
// (Nemotron 3), each behind one RMSNorm.
void ReadNemotronH(FieldReader& r, Architecture& arch) {
  const std::string pattern = r.String("hybrid_override_pattern");
  if (pattern.empty()) return;
  if (static_cast<int64_t>(pattern.size()) != arch.layers) {
    r.Fail(fmt::format("field \"hybrid_override_pattern\" has {} blocks for {} layers", pattern.size(), arch.layers));
    return;
  }
  if (const size_t bad = pattern.find_first_not_of("M*-E"); bad != std::string::npos) {
    r.Fail(fmt::format("field \"hybrid_override_pattern\" has '{}' at layer {}: only M (Mamba-2), * (attention), - (MLP) and E (MoE) are modelled",
                       pattern[bad], bad));
    return;
  }
  arch.block_pattern = pattern;
  if (pattern.find('E') != std::string::npos) ReadNemotronMoe(r, arch);
  MambaLayers& m = arch.mamba;
  m.kind = StateLayerKind::Mamba2;
  m.per_layer.assign(static_cast<size_t>(arch.layers), false);
  for (size_t i = 0; i < pattern.size(); ++i) m.per_layer[i] = pattern[i] == 'M';
  m.heads = r.Required("mamba_num_heads");
  m.head_dim = r.Required("mamba_head_dim");
  m.d_state = r.Required("ssm_state_size");
  m.groups = r.Required("n_groups");
  m.d_conv = r.Required("conv_kernel");
  m.conv_bias = r.Bool("use_conv_bias").value_or(true);
  m.proj_bias = r.Bool("use_bias").value_or(false);
  ReadSsmCacheDtype(r, m);
  arch.head_dim = r.Optional("attention_head_dim").value_or(arch.head_dim);
  arch.gated_mlp = false;
  arch.norms_per_layer = 1;
}

// Python's json module writes float('inf') and NaN as the bare words Infinity and NaN (Nemotron-H's
// "time_step_limit": [0.0, Infinity]), which JSON does not allow: outside strings they become null.
std::string NullPythonNonFinite(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      if (text.compare(i, std::char_traits<char>::length(word), word) == 0) {
        out += "null";
        i += std::char_traits<char>::length(word) - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

// quantization_config of a checkpoint published quantised. Unknown methods are kept by name and
// counted at their "bits" if given (else 16): the output then says it is not modelled.
void ReadQuantization(const json& config, Architecture& arch, FieldReader& errors) {
  auto it = config.find("quantization_config");
  if (it == config.end() || !it->is_object()) return;
  FieldReader q(*it, " in quantization_config");
  CheckpointQuant& c = arch.quant;
  c.name = q.String("quant_method");
  if (c.name.empty()) {
    errors.Fail("field \"quant_method\" is missing in quantization_config");
    return;
  }
  for (const char* list : {"modules_to_not_convert", "ignored_layers", "llm_int8_skip_modules", "ignore"}) {
    if (const json* modules = q.Find(list); modules && modules->is_array()) {
      for (const json& m : *modules) {
        if (m.is_string()) c.unquantized_modules.push_back(m.get<std::string>());
      }
    }
  }
  for (const std::string& m : c.unquantized_modules) {
    if (m.find("self_attn") != std::string::npos || m.find("attn") == 0) c.attention_unquantized = true;
  }
  // group_size -1 means one scale per output channel.
  const json* group = q.Find("group_size");
  const int64_t group_size = group && group->is_number_integer() && group->get<int64_t>() > 0 ? group->get<int64_t>() : 0;
  if (c.name == "gptq" || c.name == "awq") {
    c.method = c.name == "gptq" ? QuantMethod::Gptq : QuantMethod::Awq;
    c.bits = q.Optional("bits").value_or(q.Optional("w_bit").value_or(4));
    c.group_size = group_size > 0 ? group_size : q.Optional("q_group_size").value_or(0);
  } else if (c.name == "fp8") {
    c.method = QuantMethod::Fp8;
    c.bits = 8;
    if (const json* block = q.Find("weight_block_size"); block && block->is_array() && block->size() == 2) {
      c.block_rows = (*block)[0].is_number_integer() ? (*block)[0].get<int64_t>() : 0;
      c.block_cols = (*block)[1].is_number_integer() ? (*block)[1].get<int64_t>() : 0;
    }
  } else if (c.name == "mxfp4") {
    // GPT-OSS: the MoE experts are MXFP4; attention, router, embeddings and lm_head stay BF16
    // (its modules_to_not_convert), and transformers/vLLM quantise nothing but the experts.
    c.method = QuantMethod::Mxfp4;
    c.bits = 4;
    c.group_size = 32;
    c.experts_only = true;
  } else if (c.name == "bitsandbytes") {
    const bool four = q.Bool("load_in_4bit").value_or(false);
    c.method = four ? QuantMethod::Bnb4 : QuantMethod::Bnb8;
    c.bits = four ? 4 : 8;
    c.group_size = four ? 64 : 0;
  } else if (c.name == "compressed-tensors") {
    // llm-compressor checkpoints (RedHat/neuralmagic W4A16, W8A8-FP8): the weight scheme is in
    // config_groups.<group>.weights {num_bits, strategy, group_size, symmetric}; "ignore" lists
    // the modules kept in 16 bits. Input-activation quantisation changes no stored byte.
    c.method = QuantMethod::CompressedTensors;
    c.bits = 16;
    const json* groups = q.Find("config_groups");
    bool found = false;
    if (groups && groups->is_object()) {
      for (const auto& [group_name, g] : groups->items()) {
        if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object()) continue;
        if (found) {
          ++c.extra_groups;
          continue;
        }
        const json& w = g["weights"];
        found = true;
        c.bits = w.contains("num_bits") && w["num_bits"].is_number_integer() ? w["num_bits"].get<int64_t>() : 16;
        const std::string strategy = w.contains("strategy") && w["strategy"].is_string() ? w["strategy"].get<std::string>() : "";
        const json* gs = w.contains("group_size") ? &w["group_size"] : nullptr;
        c.group_size = strategy == "group" && gs && gs->is_number_integer() && gs->get<int64_t>() > 0 ? gs->get<int64_t>() : 0;
        c.zero_point = w.contains("symmetric") && w["symmetric"].is_boolean() && !w["symmetric"].get<bool>();
      }
    }
    if (!found) errors.Fail("quantization_config (compressed-tensors) has no config_groups entry with \"weights\"");
  } else {
    c.method = QuantMethod::Other;
    c.bits = q.Optional("bits").value_or(16);
  }
  if (!q.error().empty()) errors.Fail(q.error());
}

}  // namespace

Result<Architecture> ParseHfConfig(const json& config, const std::string& origin) {
  if (!config.is_object()) return Status::Error(fmt::format("{}: config.json is not a JSON object", origin));
  // Multimodal models (Gemma 3, LLaVA, Qwen-VL) keep the language model in "text_config".
  const bool nested = config.contains("text_config") && config["text_config"].is_object();
  const json& text = nested ? config["text_config"] : config;
  FieldReader r(text, nested ? " in text_config" : "");

  Architecture arch;
  arch.model_type = r.String("model_type");
  if (arch.model_type.empty() && config.contains("model_type") && config["model_type"].is_string()) {
    arch.model_type = config["model_type"].get<std::string>();
  }
  arch.hidden = r.Required("hidden_size");
  arch.layers = r.Required("num_hidden_layers");
  arch.heads = r.Required("num_attention_heads");
  arch.vocab = r.Required("vocab_size");
  // Transformers' own default: no num_key_value_heads means multi-head attention.
  arch.kv_heads = r.Optional("num_key_value_heads").value_or(arch.heads);
  arch.intermediate = r.Required("intermediate_size");
  arch.max_context = r.Optional("max_position_embeddings").value_or(0);
  arch.mtp_layers = r.Optional("num_nextn_predict_layers").value_or(0);
  if (!r.error().empty()) return Status::Error(fmt::format("{}: {}", origin, r.error()));
  if (arch.hidden == 0 || arch.layers == 0 || arch.heads == 0 || arch.kv_heads == 0 || arch.vocab == 0) {
    return Status::Error(fmt::format("{}: hidden_size, num_hidden_layers, num_attention_heads, "
                                     "num_key_value_heads and vocab_size must be positive", origin));
  }
  arch.head_dim = r.Optional("head_dim").value_or(arch.hidden / arch.heads);
  if (arch.heads % arch.kv_heads != 0) {
    return Status::Error(fmt::format("{}: num_attention_heads ({}) is not a multiple of num_key_value_heads ({})",
                                     origin, arch.heads, arch.kv_heads));
  }
  const bool gemma = StartsWith(arch.model_type, "gemma");
  // Defaults as the transformers config classes set them: Gemma ties embeddings, Llama, Mistral
  // and Qwen do not unless the config says so.
  std::optional<bool> tied = r.Bool("tie_word_embeddings");
  if (!tied && nested) {
    auto it = config.find("tie_word_embeddings");
    if (it != config.end() && it->is_boolean()) tied = it->get<bool>();
  }
  arch.tied_embeddings = tied.value_or(gemma);
  const std::optional<bool> attention_bias = r.Bool("attention_bias");
  arch.qkv_bias = attention_bias.value_or(arch.model_type == "qwen2" || arch.model_type == "qwen2_moe");
  // attention_bias biases every projection, o_proj included (LlamaAttention, GptOssAttention);
  // Qwen2 has no such field and biases q, k and v only.
  arch.o_bias = attention_bias.value_or(false);
  // GPT-OSS (modeling_gpt_oss.py): a sink logit per head, and biases on the router and experts.
  arch.attention_sinks = arch.expert_bias = arch.model_type == "gpt_oss";
  arch.qk_norm = StartsWith(arch.model_type, "qwen3") || StartsWith(arch.model_type, "gemma3") ||
                 StartsWith(arch.model_type, "olmo2");
  arch.norms_per_layer = (arch.model_type == "gemma2" || StartsWith(arch.model_type, "gemma3")) ? 4 : 2;
  ReadMoe(r, arch);
  ReadLlama4(r, arch);
  ReadLatentAttention(r, arch);
  ReadMamba(r, arch);
  ReadGatedDeltaNet(r, arch);
  ReadNemotronH(r, arch);
  ReadWindows(r, arch.model_type, arch);
  ReadVision(config, arch, r);
  ReadQuantization(config, arch, r);
  if (!r.error().empty()) return Status::Error(fmt::format("{}: {}", origin, r.error()));
  return arch;
}

Result<Architecture> ParseHfConfigText(const std::string& json_text, const std::string& origin) {
  json config = json::parse(NullPythonNonFinite(json_text), nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) return Status::Error(fmt::format("{}: not valid JSON", origin));
  return ParseHfConfig(config, origin);
}

}  // namespace labcheck::calc
