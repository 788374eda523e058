#include "compat/compat_rules.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "compat/version_spec.h"
#include "core/gpu_rows.h"

namespace labcheck::compat {

namespace {

constexpr const char* kWheelUrl = "https://download.pytorch.org/whl/";

std::string TorchInstall(const WheelIndex& w) {
  return fmt::format("pip install --force-reinstall torch --index-url {}{}", kWheelUrl, w.index);
}

std::string CcText(int cc) { return fmt::format("{}.{}", cc / 10, cc % 10); }

// "Data-center" for CUDA forward compatibility: not a consumer card.
bool DataCenterGpu(const std::string& name) {
  return !name.empty() && name.find("GeForce") == std::string::npos && name.find("TITAN") == std::string::npos;
}

struct Builder {
  const CompatData& data;
  std::vector<CompatLine> lines;
  CompatLine& Add(const std::string& rule, std::optional<int> gpu, Outcome status, Text subject, Text facts) {
    CompatLine line{rule, gpu, status, false, std::move(subject), std::move(facts), {}, {}};
    if (status != Outcome::Pass)
      if (const Rule* r = data.FindRule(rule)) line.breaks = r->breaks;
    lines.push_back(line);
    return lines.back();
  }
  void NotAvailable(const std::string& rule, std::optional<int> gpu, Text subject, Text why) {
    lines.push_back({rule, gpu, Outcome::Pass, true, std::move(subject), std::move(why), {}, {}});
  }
};

std::string DriverFor(const CompatData& data, const std::string& cuda) {
  for (const ToolkitDriver& t : data.toolkit_drivers)
    if (t.cuda == cuda) return t.driver;
  const std::optional<int> n = CudaNumber(cuda);
  for (const DriverFloor& f : data.floors)
    if (n && f.cuda_major == *n / 10) return f.driver;
  return "";
}

// A torch without CUDA beside a driver that has cards: PyTorch leaves them idle. The fix is the
// CUDA build this driver runs (its wheel index for the first card), as the course's step 3 installs.
void TorchWithoutCuda(Builder& b, const CompatFacts& f, const Text& subject) {
  const int cards = f.driver && !f.driver->gpus.empty() ? static_cast<int>(f.driver->gpus.size()) : f.driver_gpu_count;
  if (cards == 0)
    return b.NotAvailable("torch_cuda_vs_driver", {}, subject,
                          T("torch собран без CUDA, а GPU нет: сравнивать не с чем", "torch is built without CUDA, and there is no GPU to compare with"));
  const std::string driver = f.driver && !f.driver->driver_version.empty() ? " " + f.driver->driver_version : "";
  CompatLine& line = b.Add("torch_without_cuda", {}, Outcome::Warn, subject,
                           T(fmt::format("torch {} собран без CUDA; у драйвера{} GPU: {}", *f.python->torch_version, driver, cards),
                             fmt::format("torch {} is built without CUDA; the driver{} has {} GPU(s)", *f.python->torch_version, driver, cards)));
  const std::optional<int> dc = f.driver && !f.driver->driver_cuda.empty() ? CudaNumber(f.driver->driver_cuda) : std::nullopt;
  const int cc = f.driver && !f.driver->gpus.empty() ? f.driver->gpus.front().cc : 0;
  const WheelIndex* wheel = dc ? WheelFor(b.data, dc, cc) : nullptr;
  line.fix = wheel != nullptr ? Text(TorchInstall(*wheel))
                              : T("pip uninstall -y torch && pip install torch (шаги 2–3 настройки)",
                                  "pip uninstall -y torch && pip install torch (setup steps 2–3)");
}

void TorchVsDriver(Builder& b, const CompatFacts& f) {
  const Text subject = T("CUDA-сборка torch и драйвер", "torch's CUDA build and the driver");
  if (!f.python || !f.python->torch_version)
    return b.NotAvailable("torch_cuda_vs_driver", {}, subject,
                          f.torch_missing.empty() ? T("torch не установлен", "torch is not installed") : f.torch_missing);
  if (!f.python->torch_cuda) return TorchWithoutCuda(b, f, subject);
  if (!f.driver || f.driver->driver_cuda.empty())
    return b.NotAvailable("torch_cuda_vs_driver", {}, subject,
                          f.no_cuda_card.empty() ? T("драйвер NVIDIA не найден", "no NVIDIA driver found") : f.no_cuda_card);
  const std::string& tc_text = *f.python->torch_cuda;
  const std::optional<int> tc = CudaNumber(tc_text), dc = CudaNumber(f.driver->driver_cuda);
  if (!tc || !dc) return b.NotAvailable("torch_cuda_vs_driver", {}, subject, Text("CUDA " + tc_text + " / " + f.driver->driver_cuda));
  const Text facts(fmt::format("torch {} собран для CUDA {}; драйвер {} запускает CUDA до {}", *f.python->torch_version, tc_text,
                               f.driver->driver_version, f.driver->driver_cuda),
                   fmt::format("torch {} is built for CUDA {}; driver {} runs CUDA up to {}", *f.python->torch_version, tc_text,
                               f.driver->driver_version, f.driver->driver_cuda));
  if (*tc / 10 > *dc / 10) {
    CompatLine& line = b.Add("torch_cuda_vs_driver", {}, Outcome::Fail, subject, facts);
    const int cc = f.driver->gpus.empty() ? 0 : f.driver->gpus.front().cc;
    const WheelIndex* wheel = WheelFor(b.data, dc, cc);
    const std::string driver = DriverFor(b.data, tc_text);
    const bool dc_gpu = std::any_of(f.driver->gpus.begin(), f.driver->gpus.end(), [](const GpuFacts& g) { return DataCenterGpu(g.name); });
    const std::string compat_ru = dc_gpu ? fmt::format("; на карте для ЦОД вместо этого можно поставить пакет cuda-compat-{}-{} (forward compatibility)", *tc / 10, *tc % 10) : "";
    const std::string compat_en = dc_gpu ? fmt::format("; on a data-center card the cuda-compat-{}-{} package does instead (forward compatibility)", *tc / 10, *tc % 10) : "";
    line.facts = Text(line.facts.ru + fmt::format(". Для CUDA {} нужен драйвер ≥ {}{}", tc_text, driver, compat_ru),
                      line.facts.en + fmt::format(". CUDA {} needs driver ≥ {}{}", tc_text, driver, compat_en));
    line.fix = wheel != nullptr ? Text(TorchInstall(*wheel))
                                : T(fmt::format("обновите драйвер до ≥ {} (шаг 2 настройки)", driver),
                                    fmt::format("update the driver to ≥ {} (setup step 2)", driver));
  } else if (*tc > *dc) {
    CompatLine& line = b.Add("torch_cuda_minor_compat", {}, Outcome::Pass, subject, facts);
    line.breaks = b.data.FindRule("torch_cuda_minor_compat") ? b.data.FindRule("torch_cuda_minor_compat")->breaks : Text();
    const std::string driver = DriverFor(b.data, tc_text);
    line.fix = T(fmt::format("чтобы работало всё: обновите драйвер до ≥ {}", driver), fmt::format("for everything to work: update the driver to ≥ {}", driver));
  } else {
    b.Add("torch_cuda_vs_driver", {}, Outcome::Pass, subject, facts);
  }
}

struct ArchSupport {
  bool native = false;
  bool ptx = false;
};

ArchSupport Supports(const std::vector<std::string>& archs, int cc) {
  ArchSupport s;
  for (const std::string& a : archs) {
    int n = 0;
    char suffix = 0;
    if (std::sscanf(a.c_str(), "sm_%d%c", &n, &suffix) >= 1) {
      // A cubin runs on the same major at the same or a higher minor; "sm_90a" only on 9.0.
      if (suffix != 0 ? n == cc : (n / 10 == cc / 10 && n <= cc)) s.native = true;
    } else if (std::sscanf(a.c_str(), "compute_%d%c", &n, &suffix) >= 1) {
      if (suffix == 0 && n <= cc) s.ptx = true;  // PTX is JIT-compiled for any newer GPU
    }
  }
  return s;
}

void ArchList(Builder& b, const CompatFacts& f) {
  if (!f.driver) return;
  for (const GpuFacts& g : f.driver->gpus) {
    const Text subject = T(fmt::format("Архитектура sm_{} в сборке torch", g.cc), fmt::format("Architecture sm_{} in torch's build", g.cc));
    if (!f.python || !f.python->arch_list || f.python->arch_list->empty()) {
      b.NotAvailable("torch_arch_list", g.index, subject,
                     T("список архитектур torch неизвестен (torch без CUDA или не импортируется)",
                       "torch's architecture list is unknown (no CUDA build, or it does not import)"));
      continue;
    }
    std::string list;
    for (const std::string& a : *f.python->arch_list) list += (list.empty() ? "" : " ") + a;
    const Text facts(fmt::format("{} — CC {}; в torch: {}", g.name, CcText(g.cc), list), fmt::format("{} — CC {}; torch has: {}", g.name, CcText(g.cc), list));
    const ArchSupport s = Supports(*f.python->arch_list, g.cc);
    if (s.native) {
      b.Add("torch_arch_list", g.index, Outcome::Pass, subject, facts);
      continue;
    }
    const std::optional<int> dc = f.driver->driver_cuda.empty() ? std::nullopt : CudaNumber(f.driver->driver_cuda);
    // A build this driver runs if there is one; else the one that carries the code (and a driver update).
    const WheelIndex* wheel = WheelFor(b.data, dc, g.cc);
    if (wheel == nullptr) wheel = WheelFor(b.data, std::nullopt, g.cc);
    CompatLine& line = b.Add("torch_arch_list", g.index, s.ptx ? Outcome::Warn : Outcome::Fail, subject, facts);
    if (s.ptx)
      line.breaks = T("кода для этой архитектуры нет, только PTX: первый запуск долго компилирует ядра, часть из них медленнее",
                      "no code for this architecture, only PTX: the first start spends minutes compiling kernels, some run slower");
    if (wheel == nullptr) {
      line.fix = T("обновите torch до сборки с sm_" + std::to_string(g.cc), "update torch to a build with sm_" + std::to_string(g.cc));
    } else {
      line.fix = Text(TorchInstall(*wheel));
      const std::optional<int> wc = CudaNumber(wheel->cuda);
      if (dc && wc && *wc / 10 > *dc / 10)
        line.facts = Text(line.facts.ru + fmt::format(". Сборке {} нужен драйвер ≥ {}", wheel->index, DriverFor(b.data, wheel->cuda)),
                          line.facts.en + fmt::format(". The {} build needs driver ≥ {}", wheel->index, DriverFor(b.data, wheel->cuda)));
    }
  }
}

bool Installed(const CompatFacts& f, const std::string& package) {
  if (!f.python) return false;
  auto it = f.python->packages.find(package);
  return it != f.python->packages.end() && it->second.has_value();
}

void Features(Builder& b, const CompatFacts& f) {
  if (!f.driver) return;
  for (const GpuFacts& g : f.driver->gpus) {
    for (const Feature& feature : b.data.features) {
      const bool has = g.cc >= feature.min_cc && (!feature.max_cc || g.cc <= *feature.max_cc);
      const Text subject(feature.name);
      const Text facts(fmt::format("{} — CC {}; {} нужна CC {}{}", g.name, CcText(g.cc), feature.name, CcText(feature.min_cc),
                                   feature.max_cc && *feature.max_cc == feature.min_cc ? "" : "+"),
                       fmt::format("{} — CC {}; {} needs CC {}{}", g.name, CcText(g.cc), feature.name, CcText(feature.min_cc),
                                   feature.max_cc && *feature.max_cc == feature.min_cc ? "" : "+"));
      const std::string rule = "feature_" + feature.id;
      if (has) {
        b.Add(rule, g.index, Outcome::Pass, subject, facts);
        continue;
      }
      // Missing hardware is a problem only where something relies on it: the course trains in
      // BF16; flash-attn installed on a card it cannot run on fails at the first forward pass.
      const std::string package = feature.id == "flash_attn_3" ? "flash-attn-3" : feature.package;
      const bool relied_on = feature.id == "bf16" || (!package.empty() && Installed(f, package));
      CompatLine& line = b.Add(rule, g.index, relied_on ? Outcome::Warn : Outcome::Pass, subject, facts);
      if (!relied_on) {
        // Not a PASS: nothing works here, it is only not needed. N/A reads as "not on this card".
        line.na = true;
        line.facts = Text(line.facts.ru + " — на этой карте нет", line.facts.en + " — not on this card");
        continue;
      }
      if (feature.id == "bf16")
        line.fix = T("обучайте в float16: torch_dtype=torch.float16, Trainer(fp16=True)", "train in float16: torch_dtype=torch.float16, Trainer(fp16=True)");
      else
        line.fix = T(fmt::format("pip uninstall -y {}  # и attn_implementation=\"sdpa\"", package),
                     fmt::format("pip uninstall -y {}  # and attn_implementation=\"sdpa\"", package));
    }
  }
}

std::string ReinstallCommand(const std::string& package, const std::string& torch_version) {
  if (package == "vllm") return "python -m venv ~/venvs/vllm && ~/venvs/vllm/bin/pip install vllm  # " "vLLM in its own environment (lesson 7.1.2)";
  if (package == "flash-attn") return "pip install --force-reinstall --no-build-isolation flash-attn";
  if (package == "triton") return "pip install --force-reinstall torch==" + torch_version;
  return "pip install --force-reinstall " + package;
}

void Packages(Builder& b, const CompatFacts& f) {
  if (!f.python || !f.python->torch_version) return;
  const std::string torch = *f.python->torch_version;
  std::string torch_release = torch.substr(0, torch.find('+'));
  for (const auto& [package, facts] : f.python->packages) {
    if (!facts || package == "torch") continue;
    for (const std::string& text : facts->requires_dist) {
      std::optional<Requirement> r = ParseRequirement(text);
      if (!r || r->name != "torch" || r->specifier.empty()) continue;
      std::optional<bool> ok = Satisfies(torch, r->specifier);
      const Text subject(fmt::format("{} {} ↔ torch", package, facts->version));
      const Text shown(fmt::format("{} {} требует torch{}; установлен torch {}", package, facts->version, r->specifier, torch),
                       fmt::format("{} {} requires torch{}; torch {} is installed", package, facts->version, r->specifier, torch));
      if (!ok) {
        b.NotAvailable("package_requires_torch", {}, subject, shown);
      } else if (*ok) {
        b.Add("package_requires_torch", {}, Outcome::Pass, subject, shown);
      } else {
        // vLLM pins torch exactly; the course keeps it in an environment of its own.
        CompatLine& line = b.Add("package_requires_torch", {}, package == "vllm" ? Outcome::Warn : Outcome::Fail, subject, shown);
        line.fix = Text(ReinstallCommand(package, torch_release));
      }
    }
  }
  // torch pins the triton it was built with.
  const auto torch_facts = f.python->packages.find("torch");
  const auto triton = f.python->packages.find("triton");
  if (torch_facts != f.python->packages.end() && torch_facts->second && triton != f.python->packages.end() && triton->second) {
    for (const std::string& text : torch_facts->second->requires_dist) {
      std::optional<Requirement> r = ParseRequirement(text);
      if (!r || (r->name != "triton" && r->name != "pytorch-triton") || r->specifier.empty()) continue;
      std::optional<bool> ok = Satisfies(triton->second->version, r->specifier);
      const Text subject(fmt::format("triton {} ↔ torch", triton->second->version));
      const Text shown(fmt::format("torch {} собран с triton{}; установлен triton {}", torch, r->specifier, triton->second->version),
                       fmt::format("torch {} is built with triton{}; triton {} is installed", torch, r->specifier, triton->second->version));
      if (ok && !*ok) b.Add("triton_pin", {}, Outcome::Fail, subject, shown).fix = Text("pip install \"" + r->name + r->specifier + "\"");
      else if (ok) b.Add("triton_pin", {}, Outcome::Pass, subject, shown);
    }
  }
  for (const auto& [package, error] : f.python->import_errors) {
    const Text subject(T("импорт " + package, package + " import"));
    CompatLine& line = b.Add("extension_import", {}, Outcome::Fail, subject, Text(error));
    line.fix = Text(ReinstallCommand(package, torch_release));
  }
}

void Nccl(Builder& b, const CompatFacts& f) {
  if (!f.python || !f.python->torch_nccl || !f.driver || !f.driver->system_nccl) return;
  const Text subject = T("NCCL: torch и система", "NCCL: torch and the system");
  const Text facts(fmt::format("в torch NCCL {}; системная {} ({}, {})", *f.python->torch_nccl, *f.driver->system_nccl,
                               f.driver->system_nccl_path, f.driver->system_nccl_origin),
                   fmt::format("torch has NCCL {}; the system's is {} ({}, {})", *f.python->torch_nccl, *f.driver->system_nccl,
                               f.driver->system_nccl_path, f.driver->system_nccl_origin));
  std::optional<Version> a = Version::Parse(*f.python->torch_nccl), s = Version::Parse(*f.driver->system_nccl);
  if (a && s && Compare(*a, *s) == 0) return (void)b.Add("nccl_versions", {}, Outcome::Pass, subject, facts);
  // Only LD_LIBRARY_PATH can hand the system library to torch (its wheels find their own by RPATH).
  const bool reaches_torch = f.driver->system_nccl_origin == "LD_LIBRARY_PATH";
  CompatLine& line = b.Add("nccl_versions", {}, reaches_torch ? Outcome::Warn : Outcome::Pass, subject, facts);
  if (reaches_torch) {
    const std::string& path = f.driver->system_nccl_path;
    const std::string dir = path.substr(0, path.find_last_of('/'));
    line.fix = T(fmt::format("уберите {} из LD_LIBRARY_PATH, чтобы torch брал свою libnccl", dir),
                 fmt::format("remove {} from LD_LIBRARY_PATH so that torch loads its own libnccl", dir));
  } else {
    line.breaks = T("разные версии, но torch берёт свою; all-reduce lab_check мерил системную", "they differ, but torch loads its own; lab_check's all-reduce measured the system one");
  }
}

const char* StatusName(const CompatLine& line) { return line.na ? "N/A" : OutcomeName(line.status); }

// Why nothing could be judged, from the report's facts: the torch side and the driver side, each
// in its own words (not "no driver" where NVML lists cards that CUDA_VISIBLE_DEVICES hides).
Text NothingToCompare(const CompatFacts& facts) {
  std::vector<Text> parts;
  if (!facts.python_problem.empty()) parts.push_back(Text(facts.python_problem));
  else if (!facts.torch_missing.empty()) parts.push_back(facts.torch_missing);
  if (!facts.no_cuda_card.empty()) parts.push_back(facts.no_cuda_card);
  else if (!facts.driver && facts.driver_gpu_count == 0) parts.push_back(T("нет драйвера NVIDIA с картами", "no NVIDIA driver with cards"));
  if (parts.empty()) return T("нет ни драйвера NVIDIA, ни torch с CUDA", "neither an NVIDIA driver nor torch with CUDA");
  Text out;
  for (const Text& p : parts) {
    out.ru += (out.ru.empty() ? "" : "; ") + p.ru;
    out.en += (out.en.empty() ? "" : "; ") + p.en;
  }
  return out;
}

// "everything fits" only where every rule about torch was judged; a torch rule left N/A is named.
Text AllFit(const std::vector<CompatLine>& judged) {
  for (const CompatLine& l : judged) {
    if (!l.na || l.rule.rfind("feature_", 0) == 0) continue;  // a feature the card lacks and nothing needs
    return T("проверенное совместимо; не проверено: " + l.subject.ru + " (" + l.facts.ru + ")",
             "what was judged fits; not judged: " + l.subject.en + " (" + l.facts.en + ")");
  }
  return T("всё совместимо", "everything fits");
}

}  // namespace

const WheelIndex* WheelFor(const CompatData& data, std::optional<int> driver_cuda, int cc) {
  for (const WheelIndex& w : data.wheels) {  // newest first
    const std::optional<int> wc = CudaNumber(w.cuda);
    if (!wc) continue;
    if (driver_cuda && *wc / 10 > *driver_cuda / 10) continue;  // minor-version compatibility covers the rest
    if (cc == 0 || w.sm_max >= cc) return &w;
  }
  return nullptr;
}

std::vector<CompatLine> JudgeCompat(const CompatFacts& facts, const CompatData& data) {
  Builder b{data, {}};
  TorchVsDriver(b, facts);
  ArchList(b, facts);
  Features(b, facts);
  Packages(b, facts);
  Nccl(b, facts);
  return b.lines;
}

CheckResult AssessCompat(const CompatFacts& facts, const CompatData& data) {
  CheckResult result;
  result.id = "env.compat";
  result.section = "environment";
  result.title = T("Совместимость: драйвер, torch, карты, расширения", "Compatibility: driver, torch, cards, extensions");
  result.outcome = Outcome::Pass;
  Table table{result.title,
              {T("Что", "What"), "GPU", T("Статус", "Status"), T("Факты", "Facts"), T("Что сломается", "What breaks"), T("Как исправить", "Fix")},
              {},
              {T("Источник каждого правила и факта — data/compat.json (ссылка и дата проверки).",
                 "Every rule's and fact's source is in data/compat.json (URL and date checked).")}};
  nlohmann::json lines = nlohmann::json::array();
  std::vector<const CompatLine*> problems;
  const std::vector<CompatLine> judged = JudgeCompat(facts, data);
  std::vector<GpuRow> rows;
  for (const CompatLine& line : judged) {
    rows.push_back({line.rule, line.gpu, {line.subject, Text(StatusName(line)), line.facts, line.breaks, line.fix}});
    nlohmann::json sources = nlohmann::json::array();
    if (const Rule* r = data.FindRule(line.rule))
      for (const Source& s : r->sources) sources.push_back({{"url", s.url}, {"checked", s.checked}});
    lines.push_back({{"rule", line.rule}, {"gpu", line.gpu ? nlohmann::json(*line.gpu) : nlohmann::json()}, {"status", StatusName(line)},
                     {"facts", line.facts.en}, {"breaks", line.breaks.en}, {"fix", line.fix.en}, {"sources", sources}});
    if (!line.na && line.status != Outcome::Pass) problems.push_back(&line);
  }
  AddRowsMergedByGpu(rows, facts.driver ? static_cast<int>(facts.driver->gpus.size()) : 0, 1, table);
  if (!facts.python && !facts.python_problem.empty())
    table.notes.push_back(T("Python-часть не проверена: " + facts.python_problem, "Python side not checked: " + facts.python_problem));
  result.tables.push_back(table);
  result.data = {{"lines", lines}, {"python_problem", facts.python_problem}};
  // Nothing judged (every line N/A: no driver, no torch with CUDA): a PASS would claim a
  // compatibility nobody checked.
  const bool any_judged = std::any_of(judged.begin(), judged.end(), [](const CompatLine& l) { return !l.na; });
  if (!any_judged) {
    result.outcome = Outcome::Skip;
    const Text missing = NothingToCompare(facts);
    result.reason = T("сравнивать нечего: " + missing.ru, "nothing to compare: " + missing.en);
    result.summary = result.reason;
    return result;
  }
  int fails = 0, warns = 0;
  for (const CompatLine* p : problems) (p->status == Outcome::Fail ? fails : warns)++;
  result.summary = problems.empty() ? AllFit(judged)
                                    : T(fmt::format("несовместимостей: {}, предупреждений: {}", fails, warns),
                                        fmt::format("{} mismatch(es), {} warning(s)", fails, warns));
  for (Outcome want : {Outcome::Fail, Outcome::Warn}) {
    for (const CompatLine* p : problems) {
      if (p->status != want) continue;
      result.outcome = want;
      const std::string where = p->gpu ? fmt::format("GPU{}: ", *p->gpu) : "";
      result.reason = Text(where + p->subject.ru + " — " + p->breaks.ru, where + p->subject.en + " — " + p->breaks.en);
      result.hint = p->fix;
      break;
    }
    if (result.outcome != Outcome::Pass) break;
  }
  return result;
}

}  // namespace labcheck::compat
