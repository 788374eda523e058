#include "calc/command_support.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "calc/byte_units.h"

#include "report/display_width.h"
#include "report/terminal_writer.h"

namespace labcheck::calc {

void CommandContext::Fail(const std::string& message) const {
  *err << "lab_check: " << message << "\n";
  if (exit_code) *exit_code = 2;
}

std::optional<ModelInput> ResolveOrFail(const std::string& text, const CommandContext& context) {
  auto model = ResolveModel(text, ModelCatalog::Builtin(), ProcessEnv(), context.lang());
  if (!model.ok()) {
    context.Fail(model.status().message());
    return std::nullopt;
  }
  return std::move(model).value();
}

std::optional<TrainingSettings> SettingsOrFail(const TrainingOptions& options, const CommandContext& context) {
  auto settings = ToTrainingSettings(options, context.lang());
  if (!settings.ok()) {
    context.Fail(settings.status().message());
    return std::nullopt;
  }
  return std::move(settings).value();
}

std::optional<int64_t> TokenCountOrFail(const std::string& text, const Text& examples, const CommandContext& context) {
  const std::optional<int64_t> tokens = ParseParamCount(text);
  if (!tokens) {
    context.Fail(T(fmt::format("--tokens «{}»: нужно число токенов вроде {}", text, examples.ru),
                   fmt::format("--tokens \"{}\": expected a token count such as {}", text, examples.en)).In(context.lang()));
  }
  return tokens;
}

std::vector<LiveGpu> LiveGpus(const CommandContext& context) {
  if (!context.env->live_gpus) return {};
  return context.env->live_gpus();
}

double SmallestMemoryGib(const std::vector<LiveGpu>& gpus) {
  double memory_gib = gpus.front().memory_total_gib;
  for (const LiveGpu& g : gpus) memory_gib = std::min(memory_gib, g.memory_total_gib);
  return memory_gib;
}

std::vector<WorkNote> FeaturesOf(const ModelInput& model) {
  return model.arch ? ArchitectureFeatures(*model.arch) : std::vector<WorkNote>{};
}

nlohmann::json ModelJson(const ModelInput& model) {
  nlohmann::json j = {{"name", model.display_name},
                      {"source", model.source},
                      {"hf_repo", model.hf_repo},
                      {"has_architecture", model.has_architecture()},
                      {"total_params", model.total_params()}};
  if (auto counts = model.counts()) {
    j["active_params"] = counts->active();
    if (counts->vision > 0) j["active_params_per_text_token"] = counts->active_text();
    j["embedding_params"] = counts->embedding + counts->lm_head;
    const Architecture& a = *model.arch;
    j["architecture"] = {{"model_type", a.model_type}, {"layers", a.layers}, {"hidden", a.hidden},
                         {"heads", a.heads}, {"kv_heads", a.kv_heads}, {"head_dim", a.head_dim},
                         {"intermediate", a.intermediate}, {"vocab", a.vocab},
                         {"tied_embeddings", a.tied_embeddings}, {"experts", a.moe.experts},
                         {"experts_per_token", a.moe.experts_per_token},
                         {"sliding_window_layers", a.SlidingLayerCount()}, {"max_context", a.max_context}};
    if (a.mla.enabled()) {
      j["architecture"]["latent_attention"] = {{"q_lora_rank", a.mla.q_lora_rank}, {"kv_lora_rank", a.mla.kv_lora_rank},
                                               {"qk_nope_head_dim", a.mla.qk_nope_head_dim},
                                               {"qk_rope_head_dim", a.mla.qk_rope_head_dim}, {"v_head_dim", a.mla.v_head_dim}};
    }
    if (a.mamba.count() > 0) j["architecture"]["mamba_layers"] = a.mamba.count();
    if (a.ChunkedLayerCount() > 0) j["architecture"]["chunked_attention_layers"] = a.ChunkedLayerCount();
    if (a.quant.enabled()) j["architecture"]["checkpoint_quantization"] = a.quant.name;
    if (a.moe.shared_expert_intermediate > 0 || a.moe.first_dense_layers > 0) {
      j["architecture"]["shared_expert_intermediate"] = a.moe.shared_expert_intermediate;
      j["architecture"]["first_dense_layers"] = a.moe.first_dense_layers;
    }
  }
  return j;
}

std::string ModelLine(const ModelInput& model, Lang lang) {
  const bool ru = lang == Lang::Ru;
  std::string line = fmt::format("{}: {} {}", model.display_name, FormatParams(static_cast<double>(model.total_params())),
                                 ru ? "параметров" : "parameters");
  if (auto counts = model.counts(); counts && model.arch->moe.enabled()) {
    // With a vision tower (Llama 4) the activated figure is a text token's, as the cards give it.
    const bool vision = counts->vision > 0;
    line += fmt::format(fmt::runtime(ru ? (vision ? " (активных {} на текстовый токен)" : " (активных {})") : (vision ? " ({} active per text token)" : " ({} active)")),
                        FormatParams(static_cast<double>(counts->active_text())));
  }
  line += model.has_architecture() ? fmt::format(fmt::runtime(ru ? "; архитектура: {}" : "; architecture: {}"), model.source)
                                   : (ru ? "; только размер, без архитектуры" : "; size only, no architecture");
  return line;
}

void PrintJson(const nlohmann::json& value, const CommandContext& context) { *context.out << value.dump(2) << "\n"; }

void PrintTable(const Table& table, const CommandContext& context) {
  // Colour only on a real stdout terminal; tests and pipes get plain text.
  const TerminalStyle style = context.out == &std::cout ? TerminalStyle::ForStream(STDOUT_FILENO) : TerminalStyle{};
  *context.out << TableToTerminal(table, context.lang(), style);
}

void PrintLine(const std::string& line, const CommandContext& context) {
  // On a terminal, wrapped to its width with a two-space hanging indent (the notes run to hundreds
  // of characters); piped, one line per note, for grep and the goldens.
  const bool terminal = context.out == &std::cout && isatty(STDOUT_FILENO) == 1;
  if (!terminal) {
    *context.out << line << "\n";
    return;
  }
  // A line's own indent (the vLLM command under "Command:") stays on every line it wraps to.
  const size_t indent = std::min(line.find_first_not_of(' '), line.size());
  const std::string first(indent, ' '), rest(indent + 2, ' ');
  const size_t width = TerminalWidth(STDOUT_FILENO);
  const std::vector<std::string> lines = WrapToWidth(line.substr(indent), width > rest.size() ? width - rest.size() : width);
  for (size_t i = 0; i < lines.size(); ++i) *context.out << (i == 0 ? first : rest) << lines[i] << "\n";
}

void PrintWorkNotes(const std::vector<WorkNote>& features, const std::vector<WorkNote>& assumptions, const CommandContext& context) {
  if (!features.empty()) PrintLine(WorkNotesLine(T("Учтено:", "Applied:"), features, context.lang()), context);
  if (!assumptions.empty()) PrintLine(WorkNotesLine(T("Допущения:", "Assumptions:"), assumptions, context.lang()), context);
}

void PrintDefaultsTaken(const std::vector<DefaultTaken>& defaults, const CommandContext& context) {
  if (defaults.empty()) return;
  PrintLine(T("По умолчанию: ", "Defaults taken: ").In(context.lang()) + DefaultsLine(defaults, context.lang()), context);
}

}  // namespace labcheck::calc
