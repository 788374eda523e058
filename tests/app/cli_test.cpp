// End-to-end: the built binary, as a user runs it.
#include <algorithm>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "platform/files.h"
#include "runner/child_process.h"

namespace labcheck {
namespace {

class Cli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_cli_"); }
  void TearDown() override { RemoveTree(dir_); }
  ChildOutcome Run(std::vector<std::string> args, double timeout_s = 240) {
    ChildSpec spec;
    spec.argv = {LAB_CHECK_BINARY};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.cwd = dir_;
    spec.timeout_s = timeout_s;
    return RunChild(spec, CancelToken::Never());
  }
  std::string dir_;
};

TEST_F(Cli, UnknownFlagIsUsageErrorNamingIt) {
  ChildOutcome o = Run({"--fast"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--fast"), std::string::npos);
}

TEST_F(Cli, BadValuesAreUsageErrors) {
  ChildOutcome lang = Run({"--lang", "de"});
  EXPECT_EQ(lang.exit_code, 2);
  EXPECT_NE(lang.err.find("--lang"), std::string::npos);
  ChildOutcome scale = Run({"--timeout-scale", "-1"});
  EXPECT_EQ(scale.exit_code, 2);
  EXPECT_NE(scale.err.find("--timeout-scale"), std::string::npos);
  ChildOutcome python = Run({"--quick", "--python", "/nonexistent/python"});
  EXPECT_EQ(python.exit_code, 2);
  EXPECT_NE(python.err.find("/nonexistent/python"), std::string::npos);
}

TEST_F(Cli, VersionAndHelp) {
  ChildOutcome v = Run({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("lab_check " LAB_CHECK_VERSION), std::string::npos);
  ChildOutcome h = Run({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--skip-dist"), std::string::npos);
  EXPECT_NE(h.out.find("без torch.distributed"), std::string::npos);
  ChildOutcome en = Run({"--help", "--lang", "en"});
  EXPECT_NE(en.out.find("no torch.distributed"), std::string::npos);
}

// --only runs the named checks and what they read; the report says it was partial.
TEST_F(Cli, OnlyRunsTheNamedChecksAndSaysSo) {
  ChildOutcome o = Run({"--only", "env.system,cpu.mem*", "--lang", "en", "--python", "/bin/false"});
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.Describe() << o.err;
  auto json_text = ReadFile(dir_ + "/journal/lab-report.json");
  ASSERT_TRUE(json_text.ok());
  nlohmann::json j = nlohmann::json::parse(*json_text);
  std::vector<std::string> ids;
  for (const auto& c : j["checks"]) ids.push_back(c["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"env.system", "cpu.memory_bandwidth"}));
  EXPECT_EQ(j["meta"]["only"], nlohmann::json({"env.system", "cpu.mem*"}));
  auto md = ReadFile(dir_ + "/journal/lab-report.md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("- Mode: full check, --only env.system,cpu.mem*"), std::string::npos);
}

// The terminal's brief view leaves each check's own tables to the report; --verbose (-v) prints
// them as the terminal did before the brief view, and the files are the same either way.
TEST_F(Cli, VerbosePrintsEveryTableTheBriefViewLeavesOut) {
  const std::vector<std::string> args = {"--only", "cpu.memory_bandwidth", "--quick", "--lang", "en", "--python", "/bin/false"};
  ChildOutcome brief = Run(args);
  ASSERT_EQ(brief.exit_code, 0) << brief.Describe() << brief.err;
  auto brief_md = ReadFile(dir_ + "/journal/lab-report.md");
  std::vector<std::string> verbose_args = args;
  verbose_args.push_back("-v");
  ChildOutcome verbose = Run(verbose_args);
  ASSERT_EQ(verbose.exit_code, 0) << verbose.Describe() << verbose.err;
  auto verbose_md = ReadFile(dir_ + "/journal/lab-report.md");
  // "Figure" heads a check's measurement table (report_layout.h), printed only under --verbose.
  EXPECT_EQ(brief.out.find("Figure"), std::string::npos) << brief.out;
  EXPECT_NE(verbose.out.find("Figure"), std::string::npos) << verbose.out;
  EXPECT_NE(brief.out.find("Checks"), std::string::npos) << brief.out;
  EXPECT_NE(brief.out.find("--verbose"), std::string::npos) << brief.out;
  ASSERT_TRUE(brief_md.ok() && verbose_md.ok());
  EXPECT_EQ(brief_md->find("Figure") != std::string::npos, verbose_md->find("Figure") != std::string::npos);
}

TEST_F(Cli, OnlyWithAPatternThatMatchesNothingIsAUsageError) {
  ChildOutcome o = Run({"--only", "gpu.helth"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("«gpu.helth»"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("gpu.health"), std::string::npos) << "the message lists the checks: " << o.err;
  EXPECT_FALSE(ReadFile(dir_ + "/journal/lab-report.json").ok());
}

TEST_F(Cli, QuickRunWritesBothReportsWhereAsked) {
  ChildOutcome o = Run({"--quick", "--out", "sub/dir/lab.md", "--html", "web/lab.html"});
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.Describe() << o.err;
  auto html = ReadFile(dir_ + "/web/lab.html");
  ASSERT_TRUE(html.ok());
  EXPECT_EQ(html->rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_FALSE(ReadFile(dir_ + "/sub/dir/lab.html").ok());
  auto md = ReadFile(dir_ + "/sub/dir/lab.md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("# Отчёт lab_check"), std::string::npos);
  auto json_text = ReadFile(dir_ + "/sub/dir/lab.json");
  ASSERT_TRUE(json_text.ok());
  nlohmann::json j = nlohmann::json::parse(*json_text);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_TRUE(j["meta"]["quick"].get<bool>());
  EXPECT_TRUE(j["checks"].is_array());
  EXPECT_NE(o.out.find("sub/dir/lab.md"), std::string::npos);
}

TEST_F(Cli, DefaultReportGoesToJournal) {
  ChildOutcome o = Run({"--quick", "--lang", "en"});
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.err;
  auto md = ReadFile(dir_ + "/journal/lab-report.md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("# lab_check report"), std::string::npos);
  EXPECT_TRUE(ReadFile(dir_ + "/journal/lab-report.json").ok());
  // The HTML beside it, and the CPU chart as an SVG file the Markdown links.
  auto html = ReadFile(dir_ + "/journal/lab-report.html");
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("<svg"), std::string::npos);
  EXPECT_TRUE(ReadFile(dir_ + "/journal/lab-report-cpu-gb-s.svg").ok());
  EXPECT_NE(md->find("](lab-report-cpu-gb-s.svg)"), std::string::npos);
}

TEST_F(Cli, JsonOnlyPrintsNothingButJson) {
  ChildOutcome o = Run({"--quick", "--json-only"});
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);  // throws on anything but one JSON document
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_FALSE(ReadFile(dir_ + "/journal/lab-report.md").ok());
  EXPECT_FALSE(ReadFile(dir_ + "/journal/lab-report.html").ok());
}

TEST_F(Cli, UnwritableReportIsAnErrorAndTheJsonStillComes) {
  ChildOutcome o = Run({"--quick", "--out", "/proc/lab.md"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("/proc/lab.md"), std::string::npos);
  // One message per file, each on a line of its own (they used to run together).
  std::vector<std::string> messages;
  for (size_t start = 0, end; (end = o.err.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = o.err.substr(start, end - start);
    if (line.find("lab_check:") == std::string::npos) continue;
    EXPECT_EQ(line.rfind("lab_check:", 0), 0u) << "a message starts mid-line: " << line;
    EXPECT_EQ(line.find("lab_check:", 1), std::string::npos) << "two messages ran together: " << line;
    messages.push_back(line);
  }
  // One message for each file the report writes: .md, .json, .html and the charts' .svg files.
  auto named = [&](const std::string& path) {
    return std::count_if(messages.begin(), messages.end(),
                         [&](const std::string& m) { return m.find(path + ":") != std::string::npos; });
  };
  EXPECT_EQ(named("/proc/lab.md"), 1) << o.err;
  EXPECT_EQ(named("/proc/lab.json"), 1) << o.err;
  EXPECT_EQ(named("/proc/lab.html"), 1) << o.err;
  for (const std::string& m : messages) EXPECT_NE(m.find("/proc/lab"), std::string::npos) << m;
  const size_t brace = o.out.find('{');
  ASSERT_NE(brace, std::string::npos);
  nlohmann::json j = nlohmann::json::parse(o.out.substr(brace, o.out.rfind('}') - brace + 1));
  EXPECT_EQ(j["schema_version"], 1);
}

TEST_F(Cli, AMissingFolderIsSaidOnceNotOncePerFile) {
  // Every file of the report fails alike when its folder cannot be made: one message says it.
  ChildOutcome o = Run({"--quick", "--out", "/proc/no-such-folder/lab.md"});
  EXPECT_EQ(o.exit_code, 3);
  size_t count = 0;
  for (size_t at = o.err.find("/proc/no-such-folder"); at != std::string::npos;
       at = o.err.find("/proc/no-such-folder", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << o.err;
}

TEST_F(Cli, CtrlCWritesThePartialReport) {
  // A full run takes far longer than a second; Ctrl-C (SIGINT to the process) one second in.
  ChildSpec spec;
  spec.argv = {"sh", "-c", std::string("\"") + LAB_CHECK_BINARY + "\" --lang en & pid=$!; sleep 1.5; "
               "kill -INT $pid; wait $pid; echo \"rc=$?\""};
  spec.cwd = dir_;
  spec.timeout_s = 120;
  ChildOutcome o = RunChild(spec, CancelToken::Never());
  EXPECT_NE(o.out.find("rc=130"), std::string::npos) << o.out << o.err;
  auto json_text = ReadFile(dir_ + "/journal/lab-report.json");
  ASSERT_TRUE(json_text.ok());
  nlohmann::json j = nlohmann::json::parse(*json_text);
  EXPECT_TRUE(j["meta"]["interrupted"].get<bool>());
  EXPECT_GE(j["summary"]["NOT RUN"].get<int>(), 1);
  auto md = ReadFile(dir_ + "/journal/lab-report.md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("interrupted"), std::string::npos);
}

}  // namespace
}  // namespace labcheck
