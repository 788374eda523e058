// The section «Ожидалось в курсе → у вас»: the main table, its notes and the matching advice.
#include <set>

#include <fmt/format.h>

#include "core/text_util.h"
#include "expect/sections.h"
#include "facts/statements.h"

namespace labcheck::expect {
namespace {

using nlohmann::json;

json TextJson(const Text& t) { return {{"ru", t.ru}, {"en", t.en}}; }

bool SeveralModels(const std::vector<ExpectationRow>& rows) {
  std::set<std::string> models;
  for (const auto& r : rows) {
    if (!r.gpu_model.empty() && r.id.rfind("matmul_bf16", 0) == 0) models.insert(r.gpu_model);
  }
  return models.size() > 1;
}

Text LabelCell(const ExpectationRow& row, bool several_models) {
  Text label = row.label;
  if (several_models && !row.gpu_name.empty() && row.id != "p2p" && row.id != "gpu_to_gpu" &&
      row.id != "allreduce" && row.id != "llama_train") {
    label.ru += " — " + row.gpu_name.ru;
    label.en += " — " + row.gpu_name.en;
  }
  if (row.derived) {
    label.ru += " (оценка)";
    label.en += " (estimate)";
  }
  return label;
}

Text ReferenceCell(const ExpectationRow& row) {
  Text reference = row.reference;
  if (row.modified_card && row.course_machine) {
    // The course page's own warning, next to the rows it concerns.
    reference.ru += " *";
    reference.en += " *";
  }
  return reference;
}

Text RatioCell(const ExpectationRow& row) {
  if (!row.worst) return Text("—");
  Text cell = row.RatioCell();
  if (!row.worst->flagged()) {
    const Text verdict = VerdictText(*row.worst);
    cell.ru += " — " + verdict.ru;
    cell.en += " — " + verdict.en;
  }
  return cell;
}

json RowJson(const ExpectationRow& row) {
  json j = {{"id", row.id}, {"gpu_model", row.gpu_model}, {"label", TextJson(row.label)},
            {"reference", TextJson(row.reference)}, {"measured", TextJson(row.measured)},
            {"derived", row.derived}, {"course_machine", row.course_machine},
            {"modified_card", row.modified_card}};
  j["band"] = row.band ? json::array({row.band->low, row.band->high}) : json(nullptr);
  j["readings"] = json::array();
  for (const Reading& r : row.readings) {
    j["readings"].push_back({{"where", r.where}, {"key", r.key}, {"value", r.value}});
    if (r.band) j["readings"].back()["band"] = json::array({r.band->low, r.band->high});
  }
  j["ratio"] = row.worst ? json(row.worst->ratio) : json(nullptr);
  j["off_2x"] = row.failure                                        ? json("failure")
                : row.worst && row.worst->level == Level::OffLow  ? json("low")
                : row.worst && row.worst->level == Level::OffHigh ? json("high")
                                                                   : json(nullptr);
  if (row.failure) j["failure"] = TextJson(*row.failure);
  if (!row.worst_where.empty()) j["worst_where"] = row.worst_where;  // the card or pair farthest off
  if (!row.note.empty()) j["note"] = TextJson(row.note);
  return j;
}

}  // namespace

ReportSection ExpectationsSection(const Analysis& a, const CourseReference& course, const reference::GpuCatalog& catalog) {
  ReportSection s;
  s.id = "expectations";
  s.title = T("Ожидалось в курсе → у вас", "Expected → measured");
  s.paragraphs.push_back(
      T("Ориентиры курса посчитаны для его машины: 4× RTX 4080 32 ГБ по PCIe 4.0 без NVLink. Для других карт "
        "ориентир — паспорт и реалистичная доля от него. Отклонение на 10–20% не повод для тревоги. Отклонение "
        "в 2 раза и больше — повод разобраться по подсказкам ниже и прислать отчёт.",
        "The course's reference figures are for its machine: 4× RTX 4080 32 GB over PCIe 4.0 without NVLink. For "
        "other cards the reference is the datasheet and the realistic share of it. A deviation of 10–20% is no "
        "reason for alarm. 2× or more is a reason to look into it with the hints below and to send the report."));
  s.paragraphs.push_back(T("GPU: " + GpuSummary(a.facts).ru, "GPU: " + GpuSummary(a.facts).en));
  if (a.facts.interrupted) {
    s.paragraphs.push_back(T("Проверка была прервана: у строк без замера в колонке «У вас» указана причина.",
                             "The run was interrupted: rows without a figure say why in the column “Measured”."));
  }

  Table table;
  table.title = T("Ожидалось в курсе → у вас", "Expected → measured");
  table.columns = {T("Строка отчёта", "Report row"), T("Что измеряет", "What it measures"),
                   T("Ориентир", "Reference"),       T("У вас", "Measured"),
                   T("Отношение", "Ratio"),          T("Расхождение > 2×", "Off by > 2×")};
  const bool several = SeveralModels(a.rows);
  bool any_modified = false;
  std::set<std::string> sources;
  for (const ExpectationRow& row : a.rows) {
    table.AddRow({LabelCell(row, several), row.what, ReferenceCell(row), row.measured, RatioCell(row), row.FlagCell()});
    any_modified = any_modified || (row.modified_card && row.course_machine);
    if (!row.note.empty() && !row.derived) table.notes.push_back(T(row.label.ru + ": " + row.note.ru, row.label.en + ": " + row.note.en));
  }
  table.notes.push_back(T("Отношение — измеренное, делённое на ближайшую границу ориентира (1.00 — внутри "
                          "диапазона); у нескольких карт — у самой далёкой от ориентира.",
                          "Ratio: measured divided by the nearest edge of the reference (1.00: inside the range); "
                          "with several cards, the one farthest from it."));
  if (any_modified) table.notes.push_back(T("* " + course.modified_card_note.ru, "* " + course.modified_card_note.en));
  for (const GpuFacts& g : a.facts.gpus) {
    if (g.derived() && sources.insert("derived:" + g.driver.name).second) {
      table.notes.push_back(T("(оценка) " + g.driver.name + ": карты нет в справочнике; " + g.spec().source.ru,
                              "(estimate) " + g.driver.name + ": not in the catalog; " + g.spec().source.en));
    } else if (!g.derived() && sources.insert(g.spec().id).second) {
      table.notes.push_back(T("Источник для " + g.spec().DisplayName().ru + ": " + g.spec().source.ru,
                              "Source for " + g.spec().DisplayName().en + ": " + g.spec().source.en));
    }
  }
  table.notes.push_back(T("Доли паспорта: " + catalog.matmul_share_source().ru + "; " + catalog.memory_copy_share_source().ru,
                          "Shares of the datasheet: " + catalog.matmul_share_source().en + "; " +
                              catalog.memory_copy_share_source().en));
  // Pairs joined by NVLink are judged against links × the per-link rate: say where both come from.
  for (const PairFacts& p : a.facts.pairs) {
    if (p.expected.path != reference::PeerPath::NvLink) continue;
    const reference::GpuSpec& spec = a.facts.gpus.front().spec();
    const Text rate = spec.nvlink ? spec.nvlink->source : Text();
    table.notes.push_back(T("NVLink: скорость линка — " + rate.ru + "; доля — " + catalog.nvlink_copy_share_source().ru,
                            "NVLink: link rate from " + rate.en + "; share from " + catalog.nvlink_copy_share_source().en));
    break;
  }
  s.tables.push_back(std::move(table));

  s.data["rows"] = json::array();
  for (const ExpectationRow& row : a.rows) s.data["rows"].push_back(RowJson(row));
  s.data["hints"] = json::array();
  if (!a.hints.empty()) {
    Table hints;
    hints.title = T("Что делать: подсказки из раздела «Если тест не прошёл»", "What to do: hints from “If a test failed”");
    hints.columns = {T("Что видите", "What you see"), T("У вас", "On this machine"), T("Что делать", "What to do")};
    for (const TriggeredHint& h : a.hints) {
      hints.AddRow({hint::Symptom(h.id), h.detail, hint::Action(h.id)});
      s.data["hints"].push_back({{"id", std::string(hint::Key(h.id))}, {"source", h.source}, {"detail", TextJson(h.detail)}});
    }
    s.tables.push_back(std::move(hints));
  }
  AddBriefExpectations(a, s);
  return s;
}

Text GpuSummary(const ReportFacts& facts) {
  if (facts.gpus.empty()) return T("нет GPU", "no GPU");
  // Cards the driver has that CUDA does not see: the count says so, with why.
  if (const std::optional<Text> fewer = facts::WhyFewerGpus(facts.run.cards)) {
    const Text seen = GpuNames(facts);
    return T(seen.ru + " (" + fewer->ru + ")", seen.en + " (" + fewer->en + ")");
  }
  return GpuNames(facts);
}

Text GpuNames(const ReportFacts& facts) {
  std::vector<std::pair<Text, int>> counts;  // in the order the cards come, counted by the English name
  for (const GpuFacts& g : facts.gpus) {
    // NVML's list names the cards without their memory: the driver's name, not a catalog variant
    // (an RTX 4080 of 16 or of 32 GB) that nothing measured.
    const Text name = g.derived() || facts.gpus_from_nvml ? Text(g.driver.name) : g.spec().DisplayName();
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first.en == name.en; });
    if (it == counts.end()) {
      counts.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  }
  std::vector<Text> parts;
  for (const auto& [name, n] : counts) parts.push_back(Text(fmt::format("{}× {}", n, name.ru), fmt::format("{}× {}", n, name.en)));
  return Join(parts, " + ");
}

}  // namespace labcheck::expect
