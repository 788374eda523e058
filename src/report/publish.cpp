#include "report/publish.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <vector>

#include "platform/files.h"
#include "report/anonymize.h"
#include "report/json_writer.h"
#include "report/markdown_writer.h"
#include "report/report_files.h"
#include "report/terminal_writer.h"

namespace labcheck {

std::string JsonPathBeside(const std::string& markdown_path) {
  const std::string ext = ".md";
  if (markdown_path.size() > ext.size() &&
      markdown_path.compare(markdown_path.size() - ext.size(), ext.size(), ext) == 0) {
    return markdown_path.substr(0, markdown_path.size() - ext.size()) + ".json";
  }
  return markdown_path + ".json";
}

int PublishReport(Report& report, const PublishOptions& options) {
  const bool ru = report.lang == Lang::Ru;
  const Identity who = Identity::OfThisProcess();
  AnonymizeReport(report, who);

  const std::string json_text = AnonymizeJson(ReportToJson(report), who).dump(2) + "\n";
  const std::string json_path = JsonPathBeside(options.markdown_path);
  bool written = true;
  std::string said;  // one message per cause: five files into one missing folder fail alike
  auto write = [&](const std::string& path, const std::string& content) {
    Status s = WriteFileAtomically(path, content);
    if (!s.ok()) {
      written = false;
      if (s.message() == said) return;
      said = s.message();
      std::fprintf(stderr,
                   ru ? "%s: не удалось записать отчёт: %s. Укажите другое место: --out ПУТЬ\n"
                      : "%s: cannot write the report: %s. Choose another place with --out PATH\n",
                   options.command.c_str(), Anonymize(s.message(), who).c_str());
    }
  };
  const std::string html_path =
      options.html_path.empty() ? HtmlPathBeside(options.markdown_path) : options.html_path;
  if (!options.json_file_only) {
    const std::vector<ReportFile> files =
        options.with_html ? ReportFiles(report, options.markdown_path, html_path)
                          : std::vector<ReportFile>{{options.markdown_path, ReportToMarkdown(report)}};
    for (const ReportFile& f : files) write(f.path, Anonymize(f.content, who));
    std::error_code ignored;  // a chart that cannot be removed is only an old file
    if (written && options.with_html)
      for (const std::string& old : StaleChartFiles(options.markdown_path, files)) std::filesystem::remove(old, ignored);
  }
  write(json_path, json_text);

  if (options.json_stdout || !written) std::fwrite(json_text.data(), 1, json_text.size(), stdout);
  if (!options.json_stdout) {
    const TerminalStyle style = TerminalStyle::ForStream(STDOUT_FILENO);
    std::cout << Anonymize(options.brief_terminal ? ReportToTerminalBrief(report, style) : ReportToTerminal(report, style), who);
    if (written) {
      std::cout << (ru ? "Отчёт: " : "Report: ") << Anonymize(options.markdown_path, who) << ", "
                << Anonymize(json_path, who);
      if (options.with_html) std::cout << ", " << Anonymize(html_path, who);
      std::cout << "\n";
    }
  }
  std::cout.flush();

  if (report.meta.interrupted) return kExitInterrupted;
  if (!written) return kExitReportNotWritten;
  for (const CheckResult& c : report.checks)
    if (c.outcome == Outcome::Fail) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace labcheck
