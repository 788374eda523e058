#include "saved_reports/journal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "expect/deviation.h"
#include "report/saved_report_json.h"

namespace labcheck::saved_reports {

using expect::Num;  // figures read as in the «Ожидалось» table
namespace {

using nlohmann::json;

// "70.1 (GPU 0), 69.8 (GPU 1)" for gpu{i}.<suffix> keys, "" if none.
std::string PerGpu(const json& report, const std::string& suffix) {
  static const std::regex kGpuKey(R"(^gpu(\d+)\.(.+)$)");
  std::vector<std::string> parts;
  for (const auto& m : JsonMeasurements(report)) {
    std::smatch match;
    if (std::regex_match(m.key, match, kGpuKey) && match[2] == suffix) {
      parts.push_back(fmt::format("{} (GPU {})", Num(m.value), match[1].str()));
    }
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string One(const json& report, const char* key) {
  const auto v = JsonValue(report, key);
  return v ? Num(*v) : "";
}

std::string Factor(const json& report, const char* id, Lang lang) {
  const json* section = JsonSection(report, "recommendations");
  if (section == nullptr || !section->contains("data") || !(*section)["data"].contains(id)) {
    return lang == Lang::Ru ? "— (в отчёте нет раздела рекомендаций)" : "— (the report has no recommendations)";
  }
  const json& c = (*section)["data"][id];
  if (c.contains("value") && c["value"].is_number()) {
    std::string s = fmt::format("×{:.2f}", c["value"].get<double>());
    if (c.contains("range") && c["range"].is_array() && c["range"].size() == 2) {
      s += fmt::format(" (×{:.2f}–×{:.2f})", c["range"][0].get<double>(), c["range"][1].get<double>());
    }
    const std::string key = JsonString(c, {"from_key"});
    if (!key.empty()) s += (lang == Lang::Ru ? ", из " : ", from ") + key;
    return s;
  }
  const std::string why = c.contains("missing_reason") ? JsonLabel(c["missing_reason"], lang) : "";
  return "— " + why;
}

std::string DateOf(const json& report) {
  std::string at = JsonString(report, {"meta", "started_at"});
  if (at.empty()) at = JsonString(report, {"meta", "finished_at"});
  if (at.size() >= 16) return at.substr(0, 10) + " " + at.substr(11, 5) + " UTC";
  if (!at.empty()) return at;
  // A report without a date still gets one: when it was written into the journal.
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return buf;
}

}  // namespace

std::string JournalEntry(const json& report, const std::string& report_path, Lang lang) {
  const bool ru = lang == Lang::Ru;
  std::vector<std::pair<std::string, std::string>> lines = {
      {ru ? "Матмул BF16, TFLOPS" : "Matmul BF16, TFLOPS", PerGpu(report, "matmul_bf16_tflops")},
      {ru ? "Матмул FP16, TFLOPS" : "Matmul FP16, TFLOPS", PerGpu(report, "matmul_fp16_tflops")},
      // The SM copy judges the card; reports from before it have only the driver's copy.
      {ru ? "Память GPU (SM-копирование), ГБ/с" : "GPU memory (SM copy), GB/s", PerGpu(report, "memory_kernel_copy_gbps")},
      {ru ? "Копирование драйвера (copy engine), ГБ/с" : "Driver's copy (copy engine), GB/s", PerGpu(report, "memory_copy_gbps")},
      {ru ? "CPU→GPU, ГБ/с" : "CPU→GPU, GB/s", PerGpu(report, "h2d_pinned_gbps")},
      {ru ? "all-reduce, bus bandwidth, ГБ/с" : "all-reduce, bus bandwidth, GB/s", One(report, "nccl.allreduce_busbw_gbps")},
      {ru ? "Обучение Llama, токенов/с" : "Llama training, tokens/s", One(report, "smoke.llama.tokens_per_s")},
      {ru ? "Обучение Llama, TFLOPS" : "Llama training, TFLOPS", One(report, "smoke.llama.train_tflops")},
      {ru ? "Обучение Llama на CPU (крошечная конфигурация), токенов/с" : "Llama training on the CPU (tiny configuration), tokens/s",
       One(report, "smoke.llama_cpu_tiny.tokens_per_s")},
      {ru ? "Память CPU (copy), ГБ/с" : "CPU memory (copy), GB/s", One(report, "cpu.mem_copy_gbps")},
      {ru ? "Матмул CPU FP32, GFLOPS" : "CPU matmul FP32, GFLOPS", One(report, "cpu.sgemm_gflops")},
      {ru ? "Коэффициент времени обучения" : "Training-time factor", Factor(report, "training_time_factor", lang)},
      {ru ? "Коэффициент времени обмена" : "Communication-time factor", Factor(report, "communication_time_factor", lang)},
  };
  std::string entry = fmt::format("## lab_check, {}\n\n", DateOf(report));
  for (const auto& [what, value] : lines) entry += fmt::format("- {}: {}\n", what, value.empty() ? "—" : value);
  entry += fmt::format("- {}: {}\n", ru ? "Отчёт" : "Report", report_path);
  return entry;
}

Status AppendToJournal(const std::string& journal_path, const std::string& entry, Lang lang) {
  namespace fs = std::filesystem;
  const bool ru = lang == Lang::Ru;
  std::error_code ec;
  const fs::path path(journal_path);
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  // Separate from what is there: a blank line, after a newline if the file does not end in one.
  std::string prefix;
  if (fs::exists(path, ec) && fs::file_size(path, ec) > 0) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(-1, std::ios::end);
    char last = '\n';
    in.get(last);
    prefix = last == '\n' ? "\n" : "\n\n";
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out) {
    const std::string why = std::strerror(errno);
    return Status::Error(ru ? fmt::format("не удалось открыть {} для записи: {}. Проверьте права на папку или "
                                          "укажите другой файл через --journal.", journal_path, why)
                            : fmt::format("cannot open {} for writing: {}. Check the folder's permissions or "
                                          "give another file with --journal.", journal_path, why));
  }
  out << prefix << entry;
  out.flush();
  if (!out) {
    return Status::Error(ru ? fmt::format("не удалось дописать в {}: диск полон?", journal_path)
                            : fmt::format("could not append to {}: is the disk full?", journal_path));
  }
  return Status::Ok();
}

}  // namespace labcheck::saved_reports
