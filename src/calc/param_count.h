// Parameter counts derived from the architecture, split the way memory and FLOPs need them:
// which weights sit in linear layers (NF4 quantises those), which are embeddings, which a token
// actually uses in a mixture of experts.
#pragma once
#include <cstdint>

#include "calc/architecture.h"
#include "calc/training_settings.h"

namespace labcheck::calc {

struct ParamCounts {
  int64_t embedding = 0;       // input token embedding, vocab x hidden
  int64_t lm_head = 0;         // 0 when tied to the embedding
  int64_t attention = 0;       // q, k, v, o projections (+ biases) of all layers
  int64_t mamba = 0;           // Mamba mixers of a hybrid (Jamba)
  int64_t mlp = 0;             // dense MLPs and all experts of all layers
  int64_t routed_experts = 0;  // the part of mlp in routed experts (what MXFP4 checkpoints quantise)
  int64_t router = 0;          // MoE gates
  int64_t norms = 0;           // RMSNorm weights (layers, q/k norms, MLA's latent norms, final norm)
  int64_t vision = 0;          // vision encoder (SigLIP/ViT)
  int64_t projector = 0;       // multimodal projector into the text model
  int64_t mlp_active = 0;      // MLP parameters one token uses (experts_per_token of the experts)
  int64_t largest_linear = 0;  // biggest single weight matrix in the decoder (dequantised at once)

  int64_t total() const { return embedding + lm_head + attention + mamba + mlp + router + norms + vision + projector; }
  // What one token touches: all but the experts it is not routed to.
  int64_t active() const { return total() - mlp + mlp_active; }
  // What a text token touches: the vision tower and its projector left out (Llama 4's "17B activated").
  int64_t active_text() const { return active() - vision - projector; }
  // Model cards' "non-embedding" figure: everything but embeddings, lm_head and the vision tower.
  int64_t non_embedding() const { return attention + mamba + mlp + router + norms; }
  // Weights in nn.Linear layers of the decoder and the vision tower: what bitsandbytes quantises.
  int64_t quantizable() const { return attention + mamba + mlp + router + vision + projector; }
  // Parameters in matrix multiplications per token, for 6ND: active weights except the embedding
  // lookup, plus the output projection even when it is tied.
  int64_t matmul_active(const Architecture& arch) const;
};

ParamCounts CountParams(const Architecture& arch);

// Parameters of LoRA adapters of rank `rank`: rank x (in + out) per adapted matrix. all-linear:
// q, k, v, o, gate, up, down (each expert's too when `experts`; the MoE router never); attention:
// q, k, v, o; qv: q and v; or any list of those and gate, up, down.
int64_t LoraParams(const Architecture& arch, int64_t rank, const LoraTargets& targets = LoraTargets::AllLinear(),
                   bool experts = true);

}  // namespace labcheck::calc
