// The section «Отправить отчёт авторам курса»: a short summary ready to paste into an issue, and
// what the report contains.
#include <fmt/format.h>

#include "expect/sections.h"
#include "report/report_layout.h"

namespace labcheck::expect {
namespace {

std::string StringAt(const nlohmann::json& object, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &object;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return "";
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

std::string CheckString(const Report& report, const char* check_id, std::initializer_list<const char*> path) {
  const CheckResult* c = FindCheck(report, check_id);
  return c ? StringAt(c->data, path) : "";
}

Text FlaggedLine(const ExpectationRow& row) {
  const Text flag = row.FlagCell();
  Text label = row.label;
  if (!row.gpu_name.empty() && row.id.rfind("matmul", 0) == 0) {
    label.ru += " (" + row.gpu_name.ru + ")";
    label.en += " (" + row.gpu_name.en + ")";
  }
  Text line = T(fmt::format("{}: {} — {} (ориентир: {})", label.ru, row.measured.ru, flag.ru, row.reference.ru),
                fmt::format("{}: {}, {} (reference: {})", label.en, row.measured.en, flag.en, row.reference.en));
  if (!row.local_cause.empty()) {
    line.ru += "; причина здесь: " + row.local_cause.ru;
    line.en += "; the cause here: " + row.local_cause.en;
  }
  return line;
}

}  // namespace

ReportSection SendToAuthorsSection(const Report& report, const Analysis& a) {
  ReportSection s;
  s.id = "send_to_authors";
  s.title = T("Отправить отчёт авторам курса", "Sending the report to the course authors");
  std::vector<const ExpectationRow*> flagged;
  bool unexplained = false;
  for (const auto& row : a.rows) {
    if (!row.flagged()) continue;
    flagged.push_back(&row);
    unexplained = unexplained || row.local_cause.empty();
  }
  if (flagged.empty()) {
    s.paragraphs.push_back(T("Расхождений больше чем в 2 раза нет. Отчёт без расхождений тоже пригодится авторам: "
                             "он подтверждает, что ориентиры верны.",
                             "Nothing is off by 2× or more. A report without deviations helps the authors too: it "
                             "confirms the reference figures."));
  } else if (!unexplained) {
    // Every deviation has a cause on this machine that the report names: the estimates are right,
    // the machine is to fix.
    s.paragraphs.push_back(T("Расхождения в 2 раза и больше объясняются неполадкой, которую нашёл отчёт (см. подсказки "
                             "выше): исправьте её и запустите проверку снова. Оценки курса из-за них править не нужно.",
                             "The figures off by 2× or more are explained by a fault this report found (see the hints "
                             "above): fix it and run the check again. The course's estimates need no correction for "
                             "them."));
  } else {
    s.paragraphs.push_back(T("Есть расхождения в 2 раза и больше, которые отчёт ничем не объясняет. Пришлите "
                             "journal/lab-report.md авторам: создайте issue в репозитории курса, вставьте сводку ниже и "
                             "приложите файл. Оценки поправят.",
                             "Some figures are off by 2× or more and nothing in this report explains them. Send "
                             "journal/lab-report.md to the authors: open an issue in the course repository, paste the "
                             "summary below and attach the file. They will correct the estimates."));
  }
  s.paragraphs.push_back(T("Что попадает в отчёт: модели процессора и видеокарт, версии программ, свободное место на "
                           "дисках и результаты замеров. Имени пользователя там нет: домашняя папка в путях заменена "
                           "на ~. Перед отправкой всё равно пролистайте файл.",
                           "What the report contains: CPU and GPU models, software versions, free disk space and the "
                           "measurements. There is no user name: the home folder in paths is replaced with ~. Skim "
                           "the file before sending it anyway."));

  std::vector<std::pair<Text, Text>> lines;
  const std::string cpu = CheckString(report, "env.system", {"cpu", "model"});
  const std::string os = CheckString(report, "env.system", {"os"});
  lines.push_back({T("Машина", "Machine"), Text(cpu.empty() && os.empty() ? "—" : fmt::format("{}{}{}", cpu, cpu.empty() || os.empty() ? "" : ", ", os))});
  lines.push_back({Text("GPU"), GpuSummary(a.facts)});
  const std::string driver = CheckString(report, "gpu.inventory", {"driver_version"});
  const std::string torch = CheckString(report, "env.python", {"packages", "torch"});
  lines.push_back({T("Драйвер, PyTorch", "Driver, PyTorch"),
                   Text(fmt::format("{}, torch {}", driver.empty() ? "—" : driver, torch.empty() ? "—" : torch))});
  lines.push_back({Text("lab_check"), Text(report.meta.tool_version.empty() ? "—" : ToolVersionLine(report.meta))});
  if (flagged.empty()) {
    lines.push_back({T("Расхождения > 2×", "Off by > 2×"), T("нет", "none")});
  } else {
    for (const auto* row : flagged) lines.push_back({T("Расхождение > 2×", "Off by > 2×"), FlaggedLine(*row)});
  }
  lines.push_back({T("Коэффициент времени обучения", "Training-time factor"), CoefficientLine(a.training)});
  lines.push_back({T("Коэффициент времени обмена", "Communication-time factor"), CoefficientLine(a.communication)});

  Table summary;
  summary.title = T("Сводка для issue", "Summary for the issue");
  summary.columns = {T("Что", "What"), T("Значение", "Value")};
  Text plain;
  for (const auto& [what, value] : lines) {
    summary.AddRow({what, value});
    plain.ru += what.ru + ": " + value.ru + "\n";
    plain.en += what.en + ": " + value.en + "\n";
  }
  s.tables.push_back(std::move(summary));
  s.data["summary"] = {{"ru", plain.ru}, {"en", plain.en}};
  s.data["flagged_rows"] = nlohmann::json::array();
  for (const auto* row : flagged) s.data["flagged_rows"].push_back(row->id);
  return s;
}

}  // namespace labcheck::expect
