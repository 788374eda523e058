#include "report/report_files.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "platform/files.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/report_charts.h"
#include "report/svg_canvas.h"

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

std::vector<std::string> StaleChartFiles(const std::string& markdown_path, const std::vector<ReportFile>& files) {
  namespace fs = std::filesystem;
  std::set<fs::path> written;
  for (const ReportFile& f : files) written.insert(fs::path(f.path).lexically_normal());
  const fs::path stem(Stem(markdown_path));
  const fs::path dir = stem.has_parent_path() ? stem.parent_path() : fs::path(".");
  const std::string prefix = stem.filename().string() + "-";
  std::vector<std::string> stale;
  std::error_code error;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, error)) {
    const std::string name = e.path().filename().string();
    if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - 4, 4, ".svg") != 0 || !e.is_regular_file(error))
      continue;
    const fs::path path = (dir / name).lexically_normal();
    if (written.count(path)) continue;
    const Result<std::string> text = ReadFile(path.string());  // a chart: some kilobytes
    if (text.ok() && text->substr(0, 256).find(kChartFileMarker) != std::string::npos)
      stale.push_back(path.string());
  }
  std::sort(stale.begin(), stale.end());
  return stale;
}

}  // namespace labcheck
