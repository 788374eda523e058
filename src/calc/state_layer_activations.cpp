#include "calc/state_layer_activations.h"

#include <cmath>

#include "calc/byte_units.h"
#include "calc/rms_norm_bytes.h"

namespace labcheck::calc {
namespace {

// mamba_ssm csrc/selective_scan/selective_scan.cpp (selective_scan_fwd): the scan keeps its state
// at the start of every 2048-token chunk, "n_chunks = (seqlen + 2048 - 1) / 2048".
constexpr double kSelectiveScanChunk = 2048;
// fla ops/gated_delta_rule/chunk.py: ChunkGatedDeltaRuleFunction.forward's default chunk_size,
// which transformers' Qwen3NextGatedDeltaNet does not change.
constexpr double kDeltaRuleChunk = 64;

// Jamba: modeling_jamba.py JambaMambaMixer.cuda_kernels_forward (use_mamba_kernels, the config's
// default; transformers refuses to train it without the kernels then).
double Mamba1Bytes(const Architecture& arch, const TrainingSettings& s, bool trained) {
  const MambaLayers& m = arch.mamba;
  const double h = static_cast<double>(arch.hidden), inner = static_cast<double>(m.expand * arch.hidden);
  const double rank = static_cast<double>(m.dt_rank), state = static_cast<double>(m.d_state);
  // in_proj's output (x and the gate z): causal_conv1d_interface.py CausalConv1dFn.forward saves x,
  // a view into it, so the whole 2 x inner output stays.
  double bytes = kBf16 * 2 * inner;
  // selective_scan_interface.py SelectiveScanFn.forward saves u, delta, z, B and C after making
  // each contiguous (transformers hands them over transposed, so each is a copy), and out (before
  // the gate), plus x: the FP32 state at each 2048-token chunk, 2 x d_state per channel.
  bytes += kBf16 * (3 * inner + 2 * state + inner);
  const double chunks = std::ceil(static_cast<double>(s.seq) / kSelectiveScanChunk);
  bytes += kFp32 * inner * 2 * state * chunks / static_cast<double>(s.seq);
  // dt_layernorm, b_layernorm, c_layernorm (JambaRMSNorm) on the split of x_proj's output, counted
  // as every RMSNorm (compiled too).
  bytes += RmsNormBytes(rank, s.compile) + 2 * RmsNormBytes(state, s.compile);
  // Linear layers with a weight gradient keep their input: in_proj (the block's normalised input),
  // x_proj (the convolution's output), dt_proj (the normalised time step), out_proj (the gated output).
  if (trained) bytes += kBf16 * (h + inner + rank + inner);
  return bytes;
}

// Nemotron-H: modeling_nemotron_h.py NemotronHMamba2Mixer.cuda_kernels_forward, in training
// without an inference cache (use_cache=False, which gradient checkpointing forces): one fused
// ssd_combined.py mamba_split_conv1d_scan_combined for convolution, scan, gated norm and out_proj.
double Mamba2Bytes(const Architecture& arch, bool trained) {
  const MambaLayers& m = arch.mamba;
  const double h = static_cast<double>(arch.hidden), inner = static_cast<double>(m.heads * m.head_dim);
  const double projected = inner + static_cast<double>(m.conv_channels(arch.hidden) + m.heads);
  // MambaSplitConv1dScanCombinedFn.forward saves zxbcdt (in_proj's output: z, x/B/C and dt),
  // out_x (the scan's output before the gated norm) and rstd (FP32, one per group of the norm);
  // the convolution and out_proj's input are recomputed in its backward.
  double bytes = kBf16 * (projected + inner) + kFp32 * static_cast<double>(m.groups);
  if (trained) bytes += kBf16 * h;  // in_proj's input
  return bytes;
}

// Qwen3-Next: modeling_qwen3_next.py Qwen3NextGatedDeltaNet.forward with fla's kernels.
double GatedDeltaNetBytes(const Architecture& arch, bool trained) {
  const MambaLayers& m = arch.mamba;
  const double h = static_cast<double>(arch.hidden), channels = static_cast<double>(m.conv_channels(arch.hidden));
  const double heads = static_cast<double>(m.value_heads), key_head = static_cast<double>(m.key_head_dim);
  const double value = heads * static_cast<double>(m.value_head_dim);
  // CausalConv1dFn.forward saves its input, the concatenated q, k, v; the convolution's output stays
  // because v, a view into it, is saved by the chunk rule.
  double bytes = kBf16 * 2 * channels;
  // fla chunk.py ChunkGatedDeltaRuleFunction.forward (use_qk_l2norm_in_kernel=True): q and k after
  // l2norm_fwd at the value heads (repeat_interleave'd before) with their FP32 rstd per head, g after
  // chunk_local_cumsum (FP32), beta, and A, the WY matrix of chunk_size columns per head in k's dtype.
  bytes += kBf16 * 2 * heads * key_head + kFp32 * 2 * heads + kFp32 * heads + kBf16 * heads + kBf16 * heads * kDeltaRuleChunk;
  // g = -exp(A_log) * softplus(a.float() + dt_bias): softplus keeps its FP32 input, the product its FP32 output.
  bytes += kFp32 * 2 * heads;
  // fla fused_norm_gate.py LayerNormGatedFunction.forward (FusedRMSNormGated): the chunk rule's
  // output, the gate z (a copy: transformers reshapes it from in_proj_qkvz's interleaved output) and
  // rstd, one per head row.
  bytes += kBf16 * 2 * value + kFp32 * heads;
  if (trained) bytes += kBf16 * (h + value);  // in_proj_qkvz/in_proj_ba's shared input and out_proj's
  return bytes;
}

}  // namespace

double StateMixerActivationBytes(const Architecture& arch, const TrainingSettings& s, bool trained) {
  switch (arch.mamba.kind) {
    case StateLayerKind::Mamba2: return Mamba2Bytes(arch, trained);
    case StateLayerKind::GatedDeltaNet: return GatedDeltaNetBytes(arch, trained);
    case StateLayerKind::Mamba1: break;
  }
  return Mamba1Bytes(arch, s, trained);
}

double StateMixerBackwardBytes(const Architecture& arch) {
  const MambaLayers& m = arch.mamba;
  switch (m.kind) {
    case StateLayerKind::Mamba2: {
      // MambaSplitConv1dScanCombinedFn.backward: dzxbcdt (in_proj's output width) and the
      // recomputed output before out_proj.
      const double inner = static_cast<double>(m.heads * m.head_dim);
      return kBf16 * (inner + static_cast<double>(m.conv_channels(arch.hidden) + m.heads) + inner);
    }
    case StateLayerKind::GatedDeltaNet: {
      // ChunkGatedDeltaRuleFunction.backward returns dq, dk (at the value heads), dv, dg (FP32) and dbeta.
      const double heads = static_cast<double>(m.value_heads);
      return kBf16 * (2 * heads * static_cast<double>(m.key_head_dim) + heads * static_cast<double>(m.value_head_dim)) +
             (kFp32 + kBf16) * heads;
    }
    case StateLayerKind::Mamba1: break;
  }
  // SelectiveScanFn.backward: du, ddelta and dz from selective_scan_cuda.bwd while dout is alive.
  return kBf16 * 4 * static_cast<double>(m.expand * arch.hidden);
}

}  // namespace labcheck::calc
