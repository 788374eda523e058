// Judges of the Hugging Face tests: `hf_llama` (forward and backward), `lora` (only adapters
// learn) and `qlora` (4-bit weights, smaller than BF16, adapters learn on top).
#include <fmt/format.h>

#include "reference/hints.h"
#include "smoke/judge_common.h"
#include "smoke/judges.h"

namespace labcheck::smoke {

CheckResult JudgeHfLlama(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const auto version = f.OptionalString("transformers_version");
  const double params = f.Number("params");
  const double loss = f.Number("loss");
  const int64_t with_grad = f.Integer("tensors_with_grad");
  const bool grads_finite = f.Bool("grads_finite");
  if (!f.ok()) return Incomplete(test, f, result);

  if (!Finite(loss) || !grads_finite || with_grad == 0) {
    return Failed(test.check_id,
                  T(fmt::format("прямой/обратный проход сломан: loss {}, градиентов {}, все конечны: {}", loss,
                                with_grad, grads_finite ? "да" : "нет"),
                    fmt::format("forward/backward is broken: loss {}, {} gradients, all finite: {}", loss, with_grad,
                                grads_finite ? "yes" : "no")),
                  hint::Action(hint::kLlamaLoraSkip));
  }
  const std::string v = version.value_or("?");
  return Passed(test, T(fmt::format("transformers {}: случайная Llama на {} параметров, loss {:.2f}, градиенты конечны",
                                    v, Count(params), loss),
                        fmt::format("transformers {}: a random {}-parameter Llama, loss {:.2f}, gradients finite", v,
                                    Count(params), loss)));
}

CheckResult JudgeLora(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const auto version = f.OptionalString("peft_version");
  const int64_t adapters = f.Integer("adapter_tensors");
  const int64_t adapters_with_grad = f.Integer("adapter_tensors_with_grad");
  const int64_t base_trainable = f.Integer("base_tensors_trainable");
  const int64_t base_with_grad = f.Integer("base_tensors_with_grad");
  const double trainable = f.Number("trainable_params");
  const double total = f.Number("total_params");
  const double adapter_change = f.Number("adapter_max_change");
  const double base_change = f.Number("base_max_change");
  if (!f.ok()) return Incomplete(test, f, result);

  std::vector<std::string> wrong;
  if (adapters == 0) wrong.push_back("no LoRA adapter tensors");
  if (adapters_with_grad != adapters) wrong.push_back(fmt::format("{} of {} adapter tensors got gradients", adapters_with_grad, adapters));
  if (base_trainable != 0) wrong.push_back(fmt::format("{} base tensors are trainable", base_trainable));
  if (base_with_grad != 0) wrong.push_back(fmt::format("{} base tensors got gradients", base_with_grad));
  if (!(base_change == 0)) wrong.push_back(fmt::format("base weights moved by {}", Sci(base_change)));
  if (!(adapter_change > 0)) wrong.push_back("the adapters did not move");
  if (!wrong.empty()) {
    std::string list;
    for (const auto& w : wrong) list += (list.empty() ? "" : "; ") + w;
    return Failed(test.check_id, T("LoRA обучает не то, что должна: " + list, "LoRA trains the wrong weights: " + list),
                  hint::Action(hint::kLlamaLoraSkip));
  }
  const double share = total > 0 ? 100 * trainable / total : 0;
  const std::string v = version.value_or("?");
  return Passed(test, T(fmt::format("peft {}: градиенты только у {} тензоров адаптера ({} параметров, {:.2f}% модели), "
                                    "база заморожена",
                                    v, adapters, Count(trainable), share),
                        fmt::format("peft {}: gradients only in the {} adapter tensors ({} parameters, {:.2f}% of the "
                                    "model), the base stays frozen",
                                    v, adapters, Count(trainable), share)));
}

CheckResult JudgeQlora(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const auto version = f.OptionalString("bitsandbytes_version");
  const double bf16_mib = f.Number("bf16_model_mib");
  const double nf4_mib = f.Number("nf4_model_mib");
  const int64_t linear4bit = f.Integer("linear4bit_layers");
  const double loss = f.Number("loss");
  const int64_t adapters = f.Integer("adapter_tensors");
  const int64_t adapters_with_grad = f.Integer("adapter_tensors_with_grad");
  const int64_t base_with_grad = f.Integer("base_tensors_with_grad");
  const double params = f.Number("params");
  if (!f.ok()) return Incomplete(test, f, result);

  CheckResult out;
  out.id = test.check_id;
  Measurement bf16{"smoke.qlora.bf16_model_mib", T("тестовая модель в BF16", "test model in BF16"), bf16_mib, "MiB"};
  Measurement nf4{"smoke.qlora.nf4_model_mib", T("та же модель в NF4", "the same model in NF4"), nf4_mib, "MiB"};
  bf16.method = nf4.method = T(fmt::format("get_memory_footprint() случайной Llama на {} параметров, загруженной "
                                           "from_pretrained из временной папки",
                                           Count(params)),
                               fmt::format("get_memory_footprint() of a random {}-parameter Llama loaded with "
                                           "from_pretrained from a temporary folder",
                                           Count(params)));
  out.Add(std::move(bf16));
  out.Add(std::move(nf4));

  const bool ok = linear4bit > 0 && nf4_mib < bf16_mib && Finite(loss) && adapters > 0 &&
                  adapters_with_grad == adapters && base_with_grad == 0;
  const std::string v = version.value_or("?");
  out.summary = T(fmt::format("bitsandbytes {}: NF4 + двойное квантование, вычисления в BF16: {:.0f} МиБ против {:.0f} "
                              "МиБ в BF16, слоёв Linear4bit: {}, шаг QLoRA: loss {:.2f}",
                              v, nf4_mib, bf16_mib, linear4bit, loss),
                  fmt::format("bitsandbytes {}: NF4 + double quantisation, BF16 compute: {:.0f} MiB against {:.0f} MiB "
                              "in BF16, {} Linear4bit layers, QLoRA step: loss {:.2f}",
                              v, nf4_mib, bf16_mib, linear4bit, loss));
  if (ok) {
    out.outcome = Outcome::Pass;
    return out;
  }
  out.outcome = Outcome::Fail;
  out.reason = T(fmt::format("4 бита не сработали как надо: слоёв Linear4bit {}, память {:.0f} / {:.0f} МиБ, loss {}, "
                             "адаптеров с градиентом {} из {}, тензоров базы с градиентом {}",
                             linear4bit, nf4_mib, bf16_mib, loss, adapters_with_grad, adapters, base_with_grad),
                 fmt::format("the 4-bit path misbehaves: {} Linear4bit layers, memory {:.0f} / {:.0f} MiB, loss {}, {} "
                             "of {} adapters got gradients, {} base tensors got gradients",
                             linear4bit, nf4_mib, bf16_mib, loss, adapters_with_grad, adapters, base_with_grad));
  out.hint = hint::Action(hint::kBitsandbytes);
  return out;
}

}  // namespace labcheck::smoke
