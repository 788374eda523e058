// Judge of `llama_train`: the plain-PyTorch Llama trained, its loss stayed finite, and its speed
// becomes the measurements the course's first coefficient is based on (GPU only: the CPU's tiny
// configuration gets keys of its own so that nobody compares it with a GPU).
#include <fmt/format.h>

#include "smoke/judge_common.h"
#include "smoke/judges.h"

namespace labcheck::smoke {
namespace {

Text Method(const std::string& config, int64_t layers, int64_t d_model, int64_t seq_len, double params_matmul,
            int64_t batch, int64_t warmup, int64_t steps, const std::string& attention) {
  return T(fmt::format("конфигурация {}: слоёв {}, d_model {}, длина {}, батч {}; BF16 autocast, веса FP32, AdamW; "
                       "шагов в замере {}, разогревочных {}. FLOP = 6·N·токены + 12·слои·d_model·длина·токены "
                       "(внимание, полная некаузальная матрица, как в приложении B статьи PaLM), N = {} параметров "
                       "в матричных умножениях; внимание: {}",
                       config, layers, d_model, seq_len, batch, steps, warmup, Count(params_matmul), attention),
           fmt::format("configuration {}: {} layers, d_model {}, length {}, batch {}; BF16 autocast, FP32 weights, "
                       "AdamW; {} steps after {} warm-up steps. FLOPs = 6·N·tokens + 12·layers·d_model·length·tokens "
                       "(attention, the full non-causal matrix, as in the PaLM paper's appendix B), N = {} parameters "
                       "in matrix multiplies; attention: {}",
                       config, layers, d_model, seq_len, batch, steps, warmup, Count(params_matmul), attention));
}

}  // namespace

CheckResult JudgeLlamaTrain(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const std::string device = f.String("device");
  const std::string device_name = f.String("device_name");
  const std::string config = f.String("config");
  const double params_total = f.Number("params_total");
  const double params_matmul = f.Number("params_matmul");
  const int64_t layers = f.Integer("layers");
  const int64_t d_model = f.Integer("d_model");
  const int64_t seq_len = f.Integer("seq_len");
  const int64_t batch = f.Integer("batch");
  const int64_t warmup = f.Integer("warmup_steps");
  const int64_t steps = f.Integer("steps");
  const std::string attention = f.String("attention_impl");
  const double tokens_per_s = f.Number("tokens_per_s");
  const double tflops = f.Number("train_tflops");
  const double loss_first = f.Number("loss_first");
  const double loss_last = f.Number("loss_last");
  const auto peak_gib = f.OptionalNumber("peak_memory_gib");
  if (!f.ok()) return Incomplete(test, f, result);

  if (!Finite(loss_first) || !Finite(loss_last) || !(tokens_per_s > 0)) {
    return Failed(test.check_id,
                  T(fmt::format("обучение разошлось: loss {} → {}", loss_first, loss_last),
                    fmt::format("training diverged: loss {} → {}", loss_first, loss_last)));
  }

  const bool gpu = device == "cuda";
  const Text method = Method(config, layers, d_model, seq_len, params_matmul, batch, warmup, steps, attention);
  CheckResult out = Passed(test, {});
  Measurement speed, flops;
  speed.method = flops.method = method;
  if (gpu) {
    speed.key = "smoke.llama.tokens_per_s";
    speed.label = T("обучение Llama ~170M, токенов/с на одной GPU", "Llama ~170M training, tokens/s on one GPU");
    speed.value = tokens_per_s;
    flops.key = "smoke.llama.train_tflops";
    flops.label = T("обучение Llama ~170M, TFLOPS на одной GPU", "Llama ~170M training, TFLOPS on one GPU");
    flops.value = tflops;
    flops.unit = "TFLOPS";
  } else {
    // Not the course's figure: a model a thousand times smaller, on a CPU.
    speed.key = "smoke.llama_cpu_tiny.tokens_per_s";
    speed.label = T("крошечная Llama на CPU, токенов/с (не сравнимо с GPU)", "tiny Llama on the CPU, tokens/s (not comparable with a GPU)");
    speed.value = tokens_per_s;
    flops.key = "smoke.llama_cpu_tiny.train_gflops";
    flops.label = T("крошечная Llama на CPU, GFLOPS (не сравнимо с GPU)", "tiny Llama on the CPU, GFLOPS (not comparable with a GPU)");
    flops.value = tflops * 1000;
    flops.unit = "GFLOPS";
  }
  speed.unit = "tokens/s";
  out.Add(std::move(speed));
  out.Add(std::move(flops));

  const std::string memory = peak_gib ? fmt::format(", {:.1f} GiB", *peak_gib) : "";
  if (gpu) {
    out.summary = T(fmt::format("{} параметров, {}: {:.0f} токенов/с, {:.1f} TFLOPS{}, loss {:.2f} → {:.2f}",
                                Count(params_total), device_name, tokens_per_s, tflops, memory, loss_first, loss_last),
                    fmt::format("{} parameters, {}: {:.0f} tokens/s, {:.1f} TFLOPS{}, loss {:.2f} → {:.2f}",
                                Count(params_total), device_name, tokens_per_s, tflops, memory, loss_first, loss_last));
  } else {
    // Why it ran on the CPU is the report's facts' to say (verdict.cpp, SayWhyNoGpu).
    out.summary = T(fmt::format("путь проверен на крошечной конфигурации ({} параметров), {:.0f} "
                                "токенов/с — с оценками курса не сравнивается",
                                Count(params_total), tokens_per_s),
                    fmt::format("the path was exercised on the tiny configuration ({} parameters), "
                                "{:.0f} tokens/s — not comparable with the course's estimates",
                                Count(params_total), tokens_per_s));
  }
  return out;
}

}  // namespace labcheck::smoke
