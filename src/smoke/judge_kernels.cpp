// Judges of the kernel tests: `flash_attention` (each variant against FP32 attention), `triton`
// (a custom kernel against torch) and `torch_compile` (compiled against eager).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "smoke/judge_common.h"
#include "smoke/judges.h"
#include "smoke/skip_reasons.h"
#include "smoke/smoke_hints.h"

namespace labcheck::smoke {
namespace {

// The variants in the order the report lists them, with the names the user knows.
struct Variant {
  const char* key;
  const char* label;
};
constexpr Variant kVariants[] = {{"flash_attn", "flash_attn"}, {"sdpa_flash", "SDPA (flash)"}};

void Append(Text& text, const Text& part) {
  text.ru += (text.ru.empty() ? "" : "; ") + part.ru;
  text.en += (text.en.empty() ? "" : "; ") + part.en;
}

}  // namespace

CheckResult JudgeFlashAttention(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const nlohmann::json& variants = f.Object("variants");
  if (!f.ok()) return Incomplete(test, f, result);

  Text ran, skipped, failed;
  std::string errors, hint_source, first_missing_package;
  for (const Variant& variant : kVariants) {
    static const nlohmann::json kAbsent;
    const nlohmann::json& raw = variants.contains(variant.key) ? variants.at(variant.key) : kAbsent;
    ProbeFields v(raw, std::string("variants.") + variant.key + ".");
    const std::string status = v.String("status");
    if (!v.ok()) return Incomplete(test, v, result);
    const std::string label = variant.label;
    if (status == "ran") {
      const double err = v.Number("max_abs_err");
      if (!v.ok()) return Incomplete(test, v, result);
      const std::string figure = fmt::format("{}: max |Δ| = {}", label, Sci(err));
      if (Finite(err) && err <= kAttentionMaxAbsErr) {
        Append(ran, Text(figure));
      } else {
        Append(failed, T(figure + fmt::format(" > {}", Sci(kAttentionMaxAbsErr)), figure + fmt::format(" > {}", Sci(kAttentionMaxAbsErr))));
      }
    } else if (status == "skip") {
      const Text why = SkipReasonText(raw, "");
      Append(skipped, T(label + " — " + why.ru, label + " — " + why.en));
      if (StringOr(raw, "reason") == "package_missing" && first_missing_package.empty()) {
        first_missing_package = StringOr(raw, "package");
      }
    } else {
      const std::string error = StringOr(raw, "error_type") + ": " + StringOr(raw, "error");
      Append(failed, Text(label + ": " + error));
      errors += label + ": " + StringOr(raw, "traceback", error) + "\n";
      hint_source += error + "\n";
    }
  }

  CheckResult out;
  out.id = test.check_id;
  const std::string tolerance = fmt::format(" (BF16 vs FP32, ≤ {})", Sci(kAttentionMaxAbsErr));
  if (!failed.empty()) {
    out = Failed(test.check_id, T("FlashAttention считает неверно или падает: " + failed.ru,
                                  "FlashAttention is wrong or fails: " + failed.en),
                 HintForError(test.name, hint_source), errors);
  } else if (!ran.empty()) {
    out.outcome = Outcome::Pass;
  } else {
    out = Skipped(test.check_id, skipped, HintForSkip(test.name, "package_missing", first_missing_package));
  }
  Text summary = ran;
  if (!ran.empty()) summary = T(ran.ru + tolerance, ran.en + tolerance);
  Append(summary, skipped);
  out.summary = summary;
  // A PASS with flash_attn missing still says how to get it.
  if (out.outcome == Outcome::Pass && !first_missing_package.empty()) {
    out.hint = HintForSkip(test.name, "package_missing", first_missing_package);
  }
  return out;
}

CheckResult JudgeTriton(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const auto version = f.OptionalString("triton_version");
  const double compile_s = f.Number("compile_s");
  const double err = f.Number("max_abs_err");
  const double numel = f.Number("numel");
  if (!f.ok()) return Incomplete(test, f, result);
  const std::string v = version.value_or("?");
  if (!Finite(err) || err > kTritonMaxAbsErr) {
    return Failed(test.check_id,
                  T(fmt::format("ядро Triton считает неверно: max |Δ| = {} > {}", Sci(err), Sci(kTritonMaxAbsErr)),
                    fmt::format("the Triton kernel is wrong: max |Δ| = {} > {}", Sci(err), Sci(kTritonMaxAbsErr))));
  }
  return Passed(test, T(fmt::format("Triton {}: ядро silu(a)·b на {} элементах скомпилировано за {:.1f} с, max |Δ| "
                                    "с PyTorch = {}",
                                    v, Count(numel), compile_s, Sci(err)),
                        fmt::format("Triton {}: the silu(a)·b kernel on {} elements compiled in {:.1f} s, max |Δ| "
                                    "from PyTorch = {}",
                                    v, Count(numel), compile_s, Sci(err))));
}

CheckResult JudgeTorchCompile(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const std::string device = f.String("device");
  const double compile_s = f.Number("compile_s");
  const double eager_ms = f.Number("eager_ms");
  const double compiled_ms = f.Number("compiled_ms");
  const double speedup = f.Number("speedup");
  const double err = f.Number("max_abs_err");
  const double scale = std::max(1.0, f.Number("max_abs_output"));
  if (!f.ok()) return Incomplete(test, f, result);

  CheckResult out;
  out.id = test.check_id;
  Measurement compile{"smoke.torch_compile.compile_s", T("время torch.compile небольшой модели", "torch.compile time of a small model"), compile_s, "s"};
  Measurement ratio{"smoke.torch_compile.speedup_x", T("ускорение после torch.compile", "speed-up from torch.compile"), speedup, "×"};
  compile.method = ratio.method =
      T("два блока LayerNorm→Linear 512×2048→GELU→Linear, 64 строки, без градиентов; время первого вызова и среднее "
        "по повторам (" + device + ")",
        "two LayerNorm→Linear 512×2048→GELU→Linear blocks, 64 rows, no gradients; first-call time and the mean over "
        "repeats (" + device + ")");
  out.Add(std::move(compile));
  out.Add(std::move(ratio));
  const double rel = err / scale;
  out.summary = T(fmt::format("компиляция {:.1f} с, {:.3f} → {:.3f} мс (×{:.2f}), max |Δ| с eager = {}", compile_s,
                              eager_ms, compiled_ms, speedup, Sci(err)),
                  fmt::format("compiled in {:.1f} s, {:.3f} → {:.3f} ms (×{:.2f}), max |Δ| from eager = {}", compile_s,
                              eager_ms, compiled_ms, speedup, Sci(err)));
  if (Finite(rel) && rel <= kCompileMaxRelErr) {
    out.outcome = Outcome::Pass;
    return out;
  }
  out.outcome = Outcome::Fail;
  out.reason = T(fmt::format("скомпилированная модель считает иначе, чем eager: max |Δ| = {} (допуск {} от наибольшего "
                             "выхода)",
                             Sci(err), Sci(kCompileMaxRelErr)),
                 fmt::format("the compiled model differs from eager: max |Δ| = {} (tolerance {} of the largest output)",
                             Sci(err), Sci(kCompileMaxRelErr)));
  return out;
}

}  // namespace labcheck::smoke
