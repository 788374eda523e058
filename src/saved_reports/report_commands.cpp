#include "saved_reports/report_commands.h"

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "saved_reports/compare.h"
#include "saved_reports/compare_html.h"
#include "platform/files.h"
#include "saved_reports/journal.h"
#include "report/saved_report_json.h"

namespace labcheck::saved_reports {

int RunJournal(const JournalOptions& options, Lang lang, std::ostream& out, std::ostream& err) {
  Result<nlohmann::json> report = LoadReportJson(options.report, lang);
  if (!report.ok()) {
    err << "lab_check journal: " << report.status().message() << "\n";
    return 2;
  }
  std::string entry;
  try {
    entry = JournalEntry(*report, options.report, lang);
  } catch (const std::exception& e) {
    // A report shaped in a way we did not foresee: say so rather than crash.
    err << "lab_check journal: " << options.report << ": " << e.what() << "\n";
    return 2;
  }
  if (Status appended = AppendToJournal(options.journal, entry, lang); !appended.ok()) {
    err << "lab_check journal: " << appended.message() << "\n";
    return 2;
  }
  out << (lang == Lang::Ru ? "Дописано в " : "Appended to ") << options.journal << ":\n\n" << entry;
  return 0;
}

int RunCompare(const CompareOptions& options, Lang lang, std::ostream& out, std::ostream& err) {
  Result<nlohmann::json> a = LoadReportJson(options.a, lang);
  Result<nlohmann::json> b = LoadReportJson(options.b, lang);
  // Both problems at once: the user fixes them in one go.
  if (!a.ok()) err << "lab_check compare: " << a.status().message() << "\n";
  if (!b.ok()) err << "lab_check compare: " << b.status().message() << "\n";
  if (!a.ok() || !b.ok()) return 2;
  try {
    const Comparison c = Compare(*a, *b, options.a, options.b);
    out << (options.json ? CompareJson(c).dump(2) + "\n" : CompareMarkdown(c, lang));
    if (!options.html.empty()) {
      if (Status written = WriteFileAtomically(options.html, CompareHtml(c, *a, *b, lang)); !written.ok()) {
        err << "lab_check compare: " << written.message()
            << (lang == Lang::Ru ? ". Укажите другое место: --html ПУТЬ\n" : ". Choose another place: --html PATH\n");
        return 3;
      }
      // stderr, so that --json output on stdout stays parseable.
      err << (lang == Lang::Ru ? "Записано: " : "Written: ") << options.html << "\n";
    }
  } catch (const std::exception& e) {
    err << "lab_check compare: " << options.a << ", " << options.b << ": " << e.what() << "\n";
    return 2;
  }
  return 0;
}

void AddReportSubcommands(CLI::App& app, const Lang* lang, int* exit_code, CompareExtension extension) {
  auto journal_options = std::make_shared<JournalOptions>();
  // *lang is the peeked --lang while the command line is built, so descriptions follow it too.
  const bool ru = *lang == Lang::Ru;
  CLI::App* journal = app.add_subcommand(
      "journal", ru ? "дописать главные цифры отчёта и оба коэффициента в journal/lab.md"
                    : "append the report's key figures and both factors to journal/lab.md");
  journal->add_option("--report", journal_options->report, "lab-report.json")->capture_default_str();
  journal->add_option("--journal", journal_options->journal, "lab.md")->capture_default_str();
  journal->callback([journal_options, lang, exit_code] {
    *exit_code = RunJournal(*journal_options, *lang, std::cout, std::cerr);
  });

  auto compare_options = std::make_shared<CompareOptions>();
  CLI::App* compare = app.add_subcommand(
      "compare", ru ? "сравнить два отчёта: замеры, отношение B/A, изменения окружения; или JSON многих узлов от node-check одной таблицей"
                    : "compare two reports: figures, the ratio B/A, changes of the environment; or many nodes' node-check JSONs in one table");
  auto files = std::make_shared<std::vector<std::string>>();
  compare->add_option("reports", *files, ru ? "A.json B.json, или JSON узлов от node-check (файлы, папки, JSON Lines)"
                                           : "A.json B.json, or node-check JSONs (files, folders, JSON Lines)")
      ->required();
  compare->add_flag("--json", compare_options->json, ru ? "напечатать только JSON" : "print JSON only");
  CLI::Option* html = compare->add_option("--html", compare_options->html,
                                          ru ? std::string("HTML с графиками рядом (по умолчанию ") + kDefaultCompareHtml + ")"
                                             : std::string("side-by-side HTML with charts (default ") + kDefaultCompareHtml + ")")
                          ->expected(0, 1);
  compare->callback([compare_options, files, extension, lang, exit_code, html] {
    if (extension) {
      if (std::optional<int> code = extension(*files, compare_options->json, *lang, std::cout, std::cerr)) {
        *exit_code = *code;
        return;
      }
    }
    if (files->size() != 2) {
      std::cerr << (*lang == Lang::Ru ? "lab_check compare: нужны два отчёта, A.json и B.json (или JSON узлов от node-check)\n"
                                      : "lab_check compare: give two reports, A.json and B.json (or node-check JSONs)\n");
      *exit_code = 2;
      return;
    }
    compare_options->a = (*files)[0];
    compare_options->b = (*files)[1];
    if (html->count() > 0 && compare_options->html.empty()) compare_options->html = kDefaultCompareHtml;
    *exit_code = RunCompare(*compare_options, *lang, std::cout, std::cerr);
  });
}

int RunReportCommandLine(const std::vector<std::string>& args, const Lang* lang) {
  CLI::App app;
  int exit_code = -1;
  AddReportSubcommands(app, lang, &exit_code);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes a vector back to front
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e);
  }
  return exit_code;
}

}  // namespace labcheck::saved_reports
