#include "calc/rule_of_thumb.h"

#include <fmt/format.h>

#include <cmath>

#include "calc/byte_units.h"

namespace labcheck::calc {
namespace {

double Bytes(const TrainingMemory& m, const char* id) {
  const MemoryComponent* c = m.Find(id);
  return c && c->bytes ? *c->bytes : 0;
}

std::string Gb(double bytes) { return fmt::format("{:.1f} GB", ToGB(bytes)); }

// "detailed is 12% higher" — relative to the rule.
Text Difference(double detailed, double rule) {
  const double percent = (detailed / rule - 1) * 100;
  if (std::fabs(percent) < 5) return T("почти совпадает с правилом", "is close to the rule");
  return percent > 0 ? T(fmt::format("на {:.0f}% больше правила", percent), fmt::format("is {:.0f}% above the rule", percent))
                     : T(fmt::format("на {:.0f}% меньше правила", -percent), fmt::format("is {:.0f}% below the rule", -percent));
}

}  // namespace

RuleOfThumb LessonRuleOfThumb(const ModelInput& model, const TrainingSettings& s, const TrainingMemory& m,
                              const CalcConstants& k) {
  RuleOfThumb rule;
  const double n = static_cast<double>(model.total_params());
  const std::string params = FormatParams(n);
  const std::optional<double> detailed = m.peak_total_bytes;
  if (s.method == Method::Full) {
    rule.bytes = n * k.lesson_full_bytes_per_param * k.lesson_full_multiplier;
    rule.formula = T(fmt::format("{} × {:.0f} байта × {:.0f} = {}", params, k.lesson_full_bytes_per_param, k.lesson_full_multiplier, Gb(*rule.bytes)),
                     fmt::format("{} × {:.0f} bytes × {:.0f} = {}", params, k.lesson_full_bytes_per_param, k.lesson_full_multiplier, Gb(*rule.bytes)));
    const Text differs = detailed ? Difference(*detailed, *rule.bytes) : Text("");
    rule.comparison = T(
        fmt::format("Правило считает веса, градиенты и два состояния Adam по 2 байта. Оно не учитывает активации ({}) и логиты ({}) "
                    "при {} токенах в шаге, контекст CUDA и кэш аллокатора; зато градиенты и активации на деле не живут одновременно. "
                    "Подробная оценка {}.",
                    Gb(Bytes(m, "activations") + Bytes(m, "layer_backward")), Gb(Bytes(m, "logits")), s.batch * s.seq, differs.ru),
        fmt::format("The rule counts weights, gradients and two Adam states at 2 bytes each. It leaves out activations ({}) and "
                    "logits ({}) at {} tokens per step, the CUDA context and the allocator cache; on the other hand gradients and "
                    "activations are not alive at the same time. The detailed estimate {}.",
                    Gb(Bytes(m, "activations") + Bytes(m, "layer_backward")), Gb(Bytes(m, "logits")), s.batch * s.seq, differs.en));
    if (!model.has_architecture()) {
      rule.comparison = T("Без архитектуры активации и логиты не посчитать: правило урока — единственная полная оценка.",
                          "Without the architecture activations and logits cannot be counted: the lesson's rule is the only full estimate.");
    }
    return rule;
  }
  if (s.method == Method::Lora) {
    rule.formula = T("в уроке нет правила для LoRA в BF16", "the lesson gives no rule for LoRA in BF16");
    rule.comparison = T("Правило урока есть для полного обучения и QLoRA; для LoRA смотрите подробную оценку.",
                        "The lesson has rules for full fine-tuning and QLoRA; for LoRA use the detailed estimate.");
    return rule;
  }
  const double adapter = Bytes(m, "adapters");
  const double overhead = k.lesson_qlora_overhead_gb * kBytesPerGB;
  rule.bytes = n * k.lesson_qlora_bytes_per_param + adapter + overhead;
  const bool adapter_known = m.Find("adapters") && m.Find("adapters")->bytes;
  const Text adapter_text = adapter_known ? Text(Gb(adapter)) : T("(нужна архитектура)", "(needs the architecture)");
  rule.formula = T(fmt::format("{} × {} байта + адаптер {} + ~{:.0f} GB = {}", params, k.lesson_qlora_bytes_per_param, adapter_text.ru, k.lesson_qlora_overhead_gb, Gb(*rule.bytes)),
                   fmt::format("{} × {} bytes + adapter {} + ~{:.0f} GB = {}", params, k.lesson_qlora_bytes_per_param, adapter_text.en, k.lesson_qlora_overhead_gb, Gb(*rule.bytes)));
  // Under FSDP the NF4 quantisation state is its own component (whole on every GPU); it is weights.
  const double weights = Bytes(m, "weights") + Bytes(m, "nf4_quant_state");
  const double rest = detailed ? *detailed - weights - adapter : 0;
  const Text differs = detailed ? Difference(*detailed, *rule.bytes) : Text("");
  rule.comparison = T(
      fmt::format("Правило берёт 0.5 байта на параметр ({}); NF4 с двойным квантованием занимает {:.3f} бита, а эмбеддинги и lm_head "
                  "остаются в BF16: {}. «~2 GB накладных» здесь — активации, логиты, оптимизатор адаптера и контекст CUDA: {}. "
                  "Подробная оценка {}.",
                  Gb(n * k.lesson_qlora_bytes_per_param), k.nf4_bits, Gb(weights), Gb(rest), differs.ru),
      fmt::format("The rule takes 0.5 bytes per parameter ({}); NF4 with double quantisation takes {:.3f} bits and embeddings and "
                  "lm_head stay in BF16: {}. The '~2 GB overhead' is here activations, logits, the adapter's optimizer and the CUDA "
                  "context: {}. The detailed estimate {}.",
                  Gb(n * k.lesson_qlora_bytes_per_param), k.nf4_bits, Gb(weights), Gb(rest), differs.en));
  if (!model.has_architecture()) {
    rule.comparison = T("Без архитектуры не посчитать адаптер, активации и логиты: правило урока — единственная полная оценка.",
                        "Without the architecture the adapter, activations and logits cannot be counted: the lesson's rule is the only full estimate.");
  }
  return rule;
}

nlohmann::json RuleOfThumbJson(const RuleOfThumb& rule, Lang lang) {
  return {{"size", rule.bytes ? BytesJson(*rule.bytes) : nlohmann::json(nullptr)},
          {"formula", rule.formula.In(lang)},
          {"comparison", rule.comparison.In(lang)}};
}

}  // namespace labcheck::calc
