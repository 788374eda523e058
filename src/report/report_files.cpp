#include "report/report_files.h"

#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/report_charts.h"

namespace labcheck {
namespace {

std::string Stem(const std::string& markdown_path) {
  const std::string ext = ".md";
  if (markdown_path.size() > ext.size() &&
      markdown_path.compare(markdown_path.size() - ext.size(), ext.size(), ext) == 0) {
    return markdown_path.substr(0, markdown_path.size() - ext.size());
  }
  return markdown_path;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string HtmlPathBeside(const std::string& markdown_path) { return Stem(markdown_path) + ".html"; }

std::string SvgPathBeside(const std::string& markdown_path, const std::string& chart_id) {
  return Stem(markdown_path) + "-" + chart_id + ".svg";
}

std::vector<ReportFile> ReportFiles(const Report& report, const std::string& markdown_path, std::string html_path) {
  const std::vector<ReportChart> charts = BuildReportCharts(report);
  std::vector<ReportFile> files;
  std::vector<ChartLink> links;
  std::vector<ReportFile> svgs;
  for (const ReportChart& c : charts) {
    const std::string path = SvgPathBeside(markdown_path, c.id);
    // The SVG lies in the Markdown file's directory: the link is its bare name.
    links.push_back({c.section, c.title, BaseName(path)});
    svgs.push_back({path, c.svg.Document()});
  }
  files.push_back({markdown_path, ReportToMarkdown(report, links)});
  for (ReportFile& f : svgs) files.push_back(std::move(f));
  if (html_path.empty()) html_path = HtmlPathBeside(markdown_path);
  files.push_back({html_path, ReportToHtml(report, charts)});
  return files;
}

}  // namespace labcheck
