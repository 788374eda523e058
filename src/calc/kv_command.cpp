// lab_check kv MODEL --context N --batch B [--kv-dtype bf16|fp8] [--tp N]: KV-cache size.
#include <fmt/format.h>

#include <memory>

#include "calc/byte_units.h"
#include "calc/kv_cache.h"
#include "calc/serving.h"
#include "calc/subcommands.h"

namespace labcheck::calc {
namespace {

struct KvOptions {
  std::string model;
  int64_t context = 0;
  int64_t batch = 1;
  std::string dtype = "bf16";
  int tp = 1;
  bool json = false;
};

void Run(const KvOptions& o, const CommandContext& context) {
  const Lang lang = context.lang();
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  if (!model->arch) {
    context.Fail(T(fmt::format("для KV-кэша нужна архитектура (слои, KV-головы, head_dim), а «{}» — только размер. "
                               "Укажите модель из каталога или путь к её config.json.", o.model),
                   fmt::format("the KV cache needs the architecture (layers, KV heads, head_dim) and \"{}\" is only a size. "
                               "Give a catalog model or the path to its config.json.", o.model)).In(lang));
    return;
  }
  const Architecture& arch = *model->arch;
  if (const Status tp = CheckTensorParallel(arch, o.tp, lang); !tp.ok()) {
    context.Fail(tp.message() + T(". Возьмите --tp, который делит число голов.", ". Use a --tp that divides the head counts.").In(lang));
    return;
  }
  KvSettings s{o.context > 0 ? o.context : arch.max_context, o.batch, o.dtype == "fp8" ? 1.0 : 2.0, o.tp};
  if (s.context <= 0) {
    context.Fail(T("в config.json нет max_position_embeddings: задайте --context", "config.json has no max_position_embeddings: give --context").In(lang));
    return;
  }
  const KvCache kv = ComputeKvCache(arch, s);
  const double tokens = static_cast<double>(s.context * s.batch);
  if (o.json) {
    PrintJson({{"command", "kv"},
               {"model", ModelJson(*model)},
               {"settings", {{"context", s.context}, {"batch", s.batch}, {"kv_dtype", o.dtype}, {"tp", s.tp}}},
               {"kv", KvCacheJson(kv, s)}},
              context);
    context.Succeed();
    return;
  }
  PrintLine(ModelLine(*model, lang), context);
  PrintLine(fmt::format("context {} × batch {}, KV {}, tp {}", s.context, s.batch, o.dtype, s.tp), context);
  PrintLine("", context);
  Table table;
  table.columns = {T("Что", "What"), T("Значение", "Value")};
  table.AddRow({T("KV-голов на GPU", "KV heads per GPU"),
                fmt::format("{} ({} / tp {}{})", kv.kv_heads_per_gpu, arch.kv_heads, s.tp,
                            arch.kv_heads < s.tp ? T(fmt::format(", каждая размножена на {} GPU, как в vLLM", s.tp / arch.kv_heads),
                                                     fmt::format(", each replicated on {} GPUs, as vLLM does", s.tp / arch.kv_heads)).In(lang)
                                                 : "")});
  table.AddRow({T("Слои: полное внимание / скользящее окно", "Layers: full attention / sliding window"),
                fmt::format("{} / {}", kv.full_layers, kv.sliding_layers)});
  table.AddRow({T("Байт на токен (все слои)", "Bytes per token (all layers)"),
                fmt::format("{:.0f} ({:.1f} KiB)", kv.bytes_per_token_per_gpu, kv.bytes_per_token_per_gpu / 1024)});
  table.AddRow({T("Байт на токен в среднем (с окнами)", "Bytes per token on average (windows applied)"),
                fmt::format("{:.0f}", kv.total_bytes_per_gpu / tokens)});
  table.AddRow({T("Одна последовательность, на GPU", "One sequence, per GPU"), FormatGiBAndGB(kv.sequence_bytes_per_gpu)});
  table.AddRow({T("Весь батч, на GPU", "Whole batch, per GPU"), FormatGiBAndGB(kv.total_bytes_per_gpu)});
  table.AddRow({T("Весь батч, на всех GPU", "Whole batch, all GPUs"), FormatGiBAndGB(kv.total_bytes_all_gpus)});
  table.notes.push_back(T(fmt::format("2 (K и V) × {} KV-голов × head_dim {} × {:g} байта на слой и токен; слой со скользящим окном "
                                      "хранит не больше окна.", kv.kv_heads_per_gpu, arch.head_dim, s.dtype_bytes),
                          fmt::format("2 (K and V) × {} KV heads × head_dim {} × {:g} bytes per layer and token; a sliding-window "
                                      "layer holds at most its window.", kv.kv_heads_per_gpu, arch.head_dim, s.dtype_bytes)));
  PrintTable(table, context);
  context.Succeed();
}

}  // namespace

void AddKvCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<KvOptions>();
  CLI::App* sub = app.add_subcommand("kv", T("размер KV-кэша на токен, на последовательность и на GPU", "KV-cache size per token, per sequence and per GPU").In(context.lang()));
  sub->add_option("model", options->model, T("имя из каталога, путь к config.json или id репозитория HF из локального кэша", "catalog name, config.json path or cached HF repo id").In(context.lang()))->required();
  sub->add_option("--context", options->context, T("токенов в последовательности (по умолчанию: максимум модели)", "tokens per sequence (default: the model's maximum)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  sub->add_option("--batch", options->batch, T("последовательностей одновременно", "sequences held at once").In(context.lang()))->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  sub->add_option("--kv-dtype", options->dtype, "bf16 | fp8")->check(CLI::IsMember({"bf16", "fp8"}));
  sub->add_option("--tp", options->tp, T("степень тензорного параллелизма", "tensor-parallel degree").In(context.lang()))->check(CLI::Range(1, 1024));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc
