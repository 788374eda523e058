#include "scenario_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "platform/files.h"

namespace labcheck::sim {

namespace fs = std::filesystem;

namespace {

std::string ReadAll(const fs::path& path) {
  const Result<std::string> text = ReadFile(path.string());
  return text.ok() ? *text : std::string();
}

}  // namespace

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TempProfile::TempProfile(const std::string& base, const std::string& body) {
  static int counter = 0;
  path_ = "/tmp/nvsim-profile-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".json";
  std::ofstream(path_) << R"({"base": ")" << LAB_CHECK_SOURCE_DIR << "/tests/sim/machines/" << base << R"(", )" << body
                       << "}";
}

TempProfile::~TempProfile() { std::remove(path_.c_str()); }

LibrarySearchPaths SimPaths() {
  LibrarySearchPaths paths;
  paths.ld_library_path = {(std::filesystem::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia").string()};
  return paths;
}

void ExpectNear(const SimRun& run, const std::string& key, double expected, double tolerance) {
  const std::optional<double> got = Measured(run, key);
  ASSERT_TRUE(got.has_value()) << key << " missing";
  EXPECT_NEAR(*got, expected, expected * tolerance) << key;
}

SimRun RunLabCheck(const SimOptions& options) {
  SimRun run;
  char pattern[] = "/tmp/labcheck_sim_XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const fs::path source = LAB_CHECK_SOURCE_DIR;
  const fs::path binary = LAB_CHECK_BINARY;
  const fs::path libs = binary.parent_path() / "sim-nvidia";
  std::string command = "cd " + Quote(dir.string()) + " && env -u CUDA_VISIBLE_DEVICES -u NCCL_P2P_DISABLE";
  command += " LD_LIBRARY_PATH=" + Quote(libs.string());
  const fs::path machine = options.machine.rfind('/', 0) == 0 ? fs::path(options.machine)
                                                               : source / "tests/sim/machines" / options.machine;
  command += " LABCHECK_SIM_MACHINE=" + Quote(machine.string());
  for (const auto& [k, v] : options.env) command += " " + k + "=" + Quote(v);
  if (options.python.empty()) command += " PATH=/nonexistent VIRTUAL_ENV= CONDA_PREFIX=";
  command += " " + Quote(binary.string()) + " --out " + Quote((dir / "report.md").string());
  if (!options.python.empty()) command += " --python " + Quote(options.python);
  for (const std::string& a : options.args) command += " " + Quote(a);
  command += " >" + Quote((dir / "stdout").string()) + " 2>" + Quote((dir / "stderr").string());
  const auto started = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.stdout_text = ReadAll(dir / "stdout");
  run.stderr_text = ReadAll(dir / "stderr");
  run.markdown = ReadAll(dir / "report.md");
  const std::string json_text = ReadAll(dir / "report.json");
  if (!json_text.empty()) run.report = nlohmann::json::parse(json_text, nullptr, false);
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return run;
}

nlohmann::json RunChildJob(const std::string& machine, const std::string& job, const std::vector<std::string>& args) {
  char pattern[] = "/tmp/labcheck_sim_XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const fs::path binary = LAB_CHECK_BINARY;
  std::string command = "env -u CUDA_VISIBLE_DEVICES LD_LIBRARY_PATH=" + Quote((binary.parent_path() / "sim-nvidia").string()) +
                        " LABCHECK_SIM_MACHINE=" +
                        Quote((fs::path(LAB_CHECK_SOURCE_DIR) / "tests/sim/machines" / machine).string()) + " " +
                        Quote(binary.string()) + " internal-child " + Quote(job);
  for (const std::string& a : args) command += " " + Quote(a);
  command += " >" + Quote((dir / "stdout").string()) + " 2>/dev/null";
  (void)std::system(command.c_str());
  const std::string text = ReadAll(dir / "stdout");
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  constexpr std::string_view kMarker = "LABCHECK_CHILD_RESULT ";
  const size_t at = text.find(kMarker);
  if (at == std::string::npos) return nullptr;
  return nlohmann::json::parse(text.substr(at + kMarker.size()), nullptr, false);
}

nlohmann::json ExpectationRow(const SimRun& run, const std::string& id) {
  using nlohmann::json;
  for (const json& s : run.report.value("sections", json::array())) {
    if (s.value("id", std::string()) != "expectations") continue;
    for (const json& row : s["data"].value("rows", json::array()))
      if (row.value("id", std::string()) == id) return row;
  }
  return json();
}

const nlohmann::json* Check(const SimRun& run, const std::string& id) {
  if (!run.report.is_object() || !run.report.contains("checks")) return nullptr;
  for (const nlohmann::json& c : run.report["checks"])
    if (c.value("id", std::string()) == id) return &c;
  return nullptr;
}

std::string Verdict(const SimRun& run, const std::string& id) {
  const nlohmann::json* c = Check(run, id);
  return c != nullptr ? c->value("status", std::string("?")) : "absent";
}

std::optional<double> Measured(const SimRun& run, const std::string& key) {
  if (!run.report.is_object() || !run.report.contains("checks")) return std::nullopt;
  for (const nlohmann::json& c : run.report["checks"])
    for (const nlohmann::json& m : c.value("measurements", nlohmann::json::array()))
      if (m.value("key", std::string()) == key && m["value"].is_number()) return m["value"].get<double>();
  return std::nullopt;
}

std::vector<std::string> HintIds(const SimRun& run) {
  std::vector<std::string> ids;
  if (!run.report.is_object()) return ids;
  for (const nlohmann::json& s : run.report.value("sections", nlohmann::json::array())) {
    if (s.value("id", std::string()) != "expectations" || !s.contains("data")) continue;
    for (const nlohmann::json& h : s["data"].value("hints", nlohmann::json::array())) ids.push_back(h.value("id", std::string()));
  }
  return ids;
}

bool HasHint(const SimRun& run, const std::string& id) {
  for (const std::string& h : HintIds(run))
    if (h == id) return true;
  return false;
}

std::string CheckText(const SimRun& run, const std::string& id) {
  const nlohmann::json* c = Check(run, id);
  if (c == nullptr) return "";
  std::string text;
  for (const char* key : {"summary", "reason", "hint", "error"})
    if (c->contains(key) && (*c)[key].is_string()) text += (*c)[key].get<std::string>() + "\n";
  for (const nlohmann::json& t : c->value("tables", nlohmann::json::array()))
    for (const nlohmann::json& n : t.value("notes", nlohmann::json::array()))
      if (n.is_string()) text += n.get<std::string>() + "\n";
  return text;
}

InterruptedRun RunAndInterrupt(const std::string& machine, const std::string& args, const std::string& progress_glob,
                               const std::string& word) {
  namespace fs = std::filesystem;
  char pattern[] = "/tmp/labcheck_int_XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const fs::path binary = LAB_CHECK_BINARY;
  const std::string command =
      "cd " + dir.string() + " && export TMPDIR=" + dir.string() + " && LD_LIBRARY_PATH=" +
      (binary.parent_path() / "sim-nvidia").string() + " LABCHECK_SIM_MACHINE=" + std::string(LAB_CHECK_SOURCE_DIR) +
      "/tests/sim/machines/" + machine + " sh -c '" + binary.string() + " " + args +
      " > out.json 2> err.txt & pid=$!;"
      " for i in $(seq 1 600); do sleep 0.2; if grep -qs " + word + " " + progress_glob + "; then break; fi; done;"
      " kill -INT $pid; wait $pid; echo $? > code.txt'";
  InterruptedRun run;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  auto read = [&](const char* name) {
    std::ifstream in(dir / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string code = read("code.txt");
  run.exit_code = code.empty() ? -1 : std::atoi(code.c_str());
  run.report = nlohmann::json::parse(read("out.json"), nullptr, false);
  run.err = read("err.txt");
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return run;
}

}  // namespace labcheck::sim
