#include "env/python_check.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace labcheck::env {
namespace {

using nlohmann::json;

const std::vector<std::string> kWanted = {"torch", "numpy", "flash-attn"};

// What env_packages.py prints in a CUDA venv (trimmed to three packages).
json CudaVenvResult() {
  return json::parse(R"({
    "python": {"executable": "/home/u/venvs/ai/bin/python", "version": "3.12.3",
               "implementation": "CPython", "venv": true, "conda": false,
               "site_packages": ["/home/u/venvs/ai/lib/python3.12/site-packages"]},
    "packages": {"torch": "2.5.1+cu124", "numpy": "2.1.3", "flash-attn": null},
    "metadata_error": null,
    "torch": {"version_py": "/home/u/venvs/ai/lib/python3.12/site-packages/torch/version.py",
              "version": "2.5.1+cu124", "cuda": "12.4", "hip": null}
  })");
}

PythonFacts Parse(const json& result) {
  auto facts = ParsePythonProbe(result, kWanted);
  EXPECT_TRUE(facts.ok()) << facts.status().message();
  return facts.ok() ? facts.value() : PythonFacts{};
}

TEST(ParsePythonProbe, ReadsEveryField) {
  PythonFacts facts = Parse(CudaVenvResult());
  EXPECT_EQ(facts.version, "3.12.3");
  EXPECT_TRUE(facts.venv);
  ASSERT_EQ(facts.site_packages.size(), 1u);
  ASSERT_EQ(facts.packages.size(), 3u);
  EXPECT_EQ(facts.packages[0].first, "torch");
  EXPECT_EQ(facts.packages[0].second, "2.5.1+cu124");
  EXPECT_FALSE(facts.packages[2].second.has_value());
  EXPECT_TRUE(facts.torch_files_found);
  EXPECT_EQ(facts.torch_cuda, "12.4");
}

TEST(ParsePythonProbe, RejectsMalformedResults) {
  EXPECT_FALSE(ParsePythonProbe(json::array(), kWanted).ok());
  json no_python = CudaVenvResult();
  no_python.erase("python");
  EXPECT_FALSE(ParsePythonProbe(no_python, kWanted).ok());
  json unanswered = CudaVenvResult();
  unanswered["packages"].erase("numpy");
  EXPECT_FALSE(ParsePythonProbe(unanswered, kWanted).ok());
  json wrong_type = CudaVenvResult();
  wrong_type["packages"]["numpy"] = 2;
  EXPECT_FALSE(ParsePythonProbe(wrong_type, kWanted).ok());
  json bad_flag = CudaVenvResult();
  bad_flag["python"]["venv"] = "yes";  // nlohmann would throw; it must become a Status
  auto parsed = ParsePythonProbe(bad_flag, kWanted);
  EXPECT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("env_packages.py"), std::string::npos);
}

TEST(AssessPython, CudaBuildPassesAndFillsTheSchema) {
  CheckResult result = AssessPython(Parse(CudaVenvResult()), {"/home/u/venvs/ai/bin/python"});
  EXPECT_EQ(result.outcome, Outcome::Pass) << result.reason.en;
  EXPECT_EQ(result.id, "env.python");
  EXPECT_EQ(result.data["python"]["path"], "/home/u/venvs/ai/bin/python");
  EXPECT_EQ(result.data["python"]["version"], "3.12.3");
  EXPECT_EQ(result.data["python"]["site_packages"][0], "/home/u/venvs/ai/lib/python3.12/site-packages");
  EXPECT_EQ(result.data["packages"]["torch"], "2.5.1+cu124");
  EXPECT_TRUE(result.data["packages"]["flash-attn"].is_null());
  EXPECT_EQ(result.data["torch_cuda"], "12.4");
  EXPECT_NE(result.summary.en.find("CUDA 12.4"), std::string::npos) << result.summary.en;
  EXPECT_NE(result.summary.en.find("2/3"), std::string::npos) << result.summary.en;
}

TEST(AssessPython, NotInstalledPackagesAreSaidSo) {
  CheckResult result = AssessPython(Parse(CudaVenvResult()), {"/p"});
  const Table& packages = result.tables.at(1);
  ASSERT_EQ(packages.rows.size(), 3u);
  EXPECT_EQ(packages.rows[2][0].en, "flash-attn");
  EXPECT_EQ(packages.rows[2][1].en, "not installed");
  EXPECT_EQ(packages.rows[2][1].ru, "не установлен");
}

// The commonest first run: the course's virtualenv not activated. The check says torch is not in
// this interpreter and how to reach the one that has it; it claims nothing about GPU measurements
// (they go through the driver, not torch) and gives no uninstall advice for a torch that is absent.
TEST(AssessPython, MissingTorchSaysWhichInterpreterAndHowToReachTheCourseOne) {
  json result = CudaVenvResult();
  result["packages"]["torch"] = nullptr;
  result["torch"] = nullptr;
  CheckResult check = AssessPython(Parse(result), {"/usr/bin/python3"});
  EXPECT_EQ(check.outcome, Outcome::Warn);
  EXPECT_NE(check.reason.en.find("torch is not installed in the interpreter /usr/bin/python3"), std::string::npos) << check.reason.en;
  EXPECT_EQ(check.reason.en.find("GPU measurements"), std::string::npos) << check.reason.en;
  EXPECT_NE(check.hint.en.find("activate the course's environment"), std::string::npos) << check.hint.en;
  EXPECT_NE(check.hint.en.find("--python"), std::string::npos) << check.hint.en;
  EXPECT_EQ(check.hint.en.find("uninstall"), std::string::npos) << check.hint.en;
  EXPECT_FALSE(check.data["torch_installed"].get<bool>());
  EXPECT_TRUE(check.data["torch_cuda"].is_null());
}

// A CPU-only torch is a fact of the interpreter, said in its summary; whether the machine has cards
// it leaves idle is env.compat's verdict (it reads the driver's cards), not a guess from
// /proc/driver/nvidia/version, which the simulated machine (and a container) does not have.
TEST(AssessPython, CpuOnlyTorchIsNamedAndJudgedAgainstTheCardsElsewhere) {
  json result = CudaVenvResult();
  result["packages"]["torch"] = "2.5.1+cpu";
  result["torch"]["cuda"] = nullptr;
  CheckResult check = AssessPython(Parse(result), {"/p"});
  EXPECT_EQ(check.outcome, Outcome::Pass);
  EXPECT_NE(check.summary.en.find("CPU-only build"), std::string::npos) << check.summary.en;
  EXPECT_TRUE(check.data["torch_installed"].get<bool>());
}

TEST(AssessPython, OldPythonWithoutMetadataWarns) {
  json result = CudaVenvResult();
  result["metadata_error"] = "importlib.metadata is missing (Python < 3.8)";
  for (auto& [name, version] : result["packages"].items()) version = nullptr;
  EXPECT_EQ(AssessPython(Parse(result), {"/p"}).outcome, Outcome::Warn);
}

}  // namespace
}  // namespace labcheck::env
