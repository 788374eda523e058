#include "gpu/health/kernel_log_lines.h"

#include <algorithm>
#include <cctype>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck::gpu::health {

namespace {

std::string LowerCasePci(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A /dev/kmsg record's message: after its header, up to the dictionary. Other records whole.
std::string KmsgMessageOf(const std::string& record) {
  static const std::regex kKmsgHeader(R"(^\d+,\d+,\d+,[^;]*;)");
  std::smatch m;
  // A /dev/kmsg record starts with its priority's digits; std::regex is slow, so asked only then.
  if (record.empty() || !std::isdigit(static_cast<unsigned char>(record[0])) || !std::regex_search(record, m, kKmsgHeader))
    return record;
  const std::string body = record.substr(static_cast<size_t>(m.length(0)));
  return body.substr(0, body.find('\n'));
}

// The separators a record's inner newlines are written as: a real newline (a text file read
// whole), /dev/kmsg's "\x0a", rsyslog's "#012".
void SplitRecordInto(const std::string& message, std::optional<double> time, std::vector<LogLine>& out) {
  static const char* const kSeparators[] = {"\\x0a", "#012", "\n"};
  size_t at = 0;
  while (at <= message.size()) {
    size_t next = std::string::npos, width = 0;
    for (const char* sep : kSeparators) {
      const size_t found = message.find(sep, at);
      if (found < next) next = found, width = std::char_traits<char>::length(sep);
    }
    std::string line = message.substr(at, next == std::string::npos ? std::string::npos : next - at);
    while (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back({line, time});
    if (next == std::string::npos) break;
    at = next + width;
  }
}

}  // namespace

std::optional<double> KernelTime(const std::string& record) {
  static const std::regex kKmsg(R"(^\d+,\d+,(\d+),[^;]*;)");
  static const std::regex kBracket(R"(\[\s*(\d+\.\d+)\])");
  std::smatch m;
  const bool kmsg = !record.empty() && std::isdigit(static_cast<unsigned char>(record[0])) && record.find(';') != std::string::npos;
  if (kmsg && std::regex_search(record, m, kKmsg)) return std::stod(m[1].str()) / 1e6;
  if (record.find('[') != std::string::npos && std::regex_search(record, m, kBracket)) return std::stod(m[1].str());
  return std::nullopt;
}

std::vector<LogLine> KernelLogLinesOf(const std::vector<std::string>& records) {
  std::vector<LogLine> lines;
  for (const std::string& record : records) SplitRecordInto(KmsgMessageOf(record), KernelTime(record), lines);
  return lines;
}

bool IsBootLine(const std::string& line) { return line.find("Linux version ") != std::string::npos; }

std::optional<std::string> DriverLoadVersion(const std::string& line) {
  const size_t at = line.find("NVRM: loading NVIDIA UNIX");
  if (at == std::string::npos) return std::nullopt;
  static const std::regex kVersion(R"(\s(\d{3,}\.\d+(?:\.\d+)?)(?:\s|$))");
  std::smatch m;
  const std::string rest = line.substr(at);
  if (!std::regex_search(rest, m, kVersion)) return std::string();
  return m[1].str();
}

std::string KernelPci(const std::string& printed) {
  std::string pci = LowerCasePci(printed);
  if (pci.rfind("pci:", 0) == 0) pci = pci.substr(4);
  const size_t dot = pci.find('.');
  if (dot != std::string::npos) pci = pci.substr(0, dot);
  // "3b:00" has one colon: the domain left out, as older drivers printed it.
  if (std::count(pci.begin(), pci.end(), ':') == 1) pci = "0000:" + pci;
  return pci;
}

}  // namespace labcheck::gpu::health
