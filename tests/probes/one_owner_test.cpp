// Nothing in src/ starts the user's Python except through the run's Interpreter
// (src/probes/interpreter.h): otherwise a part that asks on its own waits its own budget on an
// interpreter already known not to answer (issue 25). The guard is a scan of the sources: who may
// spawn a process at all, who may run a child, and who may run a probe. A new caller fails here
// until it goes through the Interpreter, or is added below with the reason it starts no Python.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck {
namespace {

namespace fs = std::filesystem;

// src-relative path → the lines (1-based) where `pattern` is called, comments left out.
std::map<std::string, std::vector<int>> CallersOf(const std::regex& pattern) {
  std::map<std::string, std::vector<int>> found;
  const fs::path src = fs::path(LAB_CHECK_SOURCE_DIR) / "src";
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(src)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const size_t code = line.find_first_not_of(" \t");
      if (code == std::string::npos || line.compare(code, 2, "//") == 0) continue;
      const std::string before_comment = line.substr(0, line.find("//"));
      if (std::regex_search(before_comment, pattern))
        found[fs::relative(entry.path(), src).string()].push_back(number);
    }
  }
  return found;
}

std::string Unexpected(const std::map<std::string, std::vector<int>>& found, const std::set<std::string>& allowed) {
  std::ostringstream out;
  for (const auto& [file, lines] : found) {
    if (allowed.count(file)) continue;
    out << "src/" << file << ":";
    for (int line : lines) out << " " << line;
    out << "\n";
  }
  return out.str();
}

TEST(OneOwner, OnlyTheChildProcessModuleSpawnsProcesses) {
  const auto found = CallersOf(std::regex(R"(\b(posix_spawnp?|fork|vfork|exec[lv]p?e?|popen|system)\s*\()"));
  EXPECT_EQ(Unexpected(found, {"runner/child_process.cpp"}), "")
      << "spawn children through RunChild (runner/child_process.h), Python through probes::Interpreter";
}

TEST(OneOwner, OnlyTheProbeRunnerAndTheJobRunnerRunChildren) {
  const auto found = CallersOf(std::regex(R"(\bRunChild\s*\()"));
  EXPECT_EQ(Unexpected(found,
                       {
                           "runner/child_process.h", "runner/child_process.cpp",  // the definition
                           "runner/child_job.cpp",      // re-runs this binary (self_exe) for a GPU job
                           "probes/python_probe.cpp",   // RunProbe: reached only through the Interpreter
                           "node_check/slurm/slurm_drain.cpp",  // scontrol, never the user's Python
                       }),
            "")
      << "a child that runs the user's Python must go through probes::Interpreter";
}

TEST(OneOwner, OnlyTheInterpreterRunsProbes) {
  const auto found = CallersOf(std::regex(R"(\bRunProbe\s*\()"));
  EXPECT_EQ(Unexpected(found, {"probes/python_probe.h", "probes/python_probe.cpp", "probes/interpreter.cpp"}), "")
      << "ask probes::Interpreter::Run (ChosenInterpreter(ctx.options())), which knows when it does not answer";
  ASSERT_TRUE(found.count("probes/interpreter.cpp")) << "the scan found nothing: is LAB_CHECK_SOURCE_DIR right?";
}

}  // namespace
}  // namespace labcheck
