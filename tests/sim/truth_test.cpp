// The truth test (issue 56): lab_check run on the simulated machines across the situations a user
// meets (the machine × the interpreter × the flags × CUDA_VISIBLE_DEVICES), and invariants held over
// every statement of every report (report_statements.h): nothing says "no GPU" or "no driver" where
// NVML lists cards; nothing says "needs 2 GPUs" or "one GPU" where two are visible; no uninstall
// advice without an installed torch; every "not measured" names the cause its check gives; no
// reference text of the course machine on another model; no two statements contradict; every
// command named parses (command_lines.h). Each cell runs lab_check once and asserts the invariants
// and the issue's statements for its situation on that one report; the cells are cut to the
// checks their statements need (--quick, --only), so that the matrix stays within tens of seconds.
#include <algorithm>
#include <regex>
#include <set>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "command_lines.h"
#include "expect/expectation_rows.h"
#include "platform/files.h"
#include "report_statements.h"
#include "scenario_support.h"
#include "../smoke/torch_python.h"

namespace labcheck::sim {
namespace {

using nlohmann::json;

// ---- what the report says about itself -------------------------------------------------------

int NvmlCount(const SimRun& run) {
  const json* inventory = Check(run, "gpu.inventory");
  if (inventory == nullptr) return 0;
  const json& data = inventory->value("data", json::object());
  if (data.value("nvml_gpus", json()).is_array()) return static_cast<int>(data["nvml_gpus"].size());
  return data.value("gpus", json()).is_array() ? static_cast<int>(data["gpus"].size()) : 0;
}

int CudaCount(const SimRun& run) {
  const json* inventory = Check(run, "gpu.inventory");
  if (inventory == nullptr) return 0;
  const json& gpus = inventory->value("data", json::object()).value("gpus", json());
  return gpus.is_array() ? static_cast<int>(gpus.size()) : 0;
}

bool TorchInstalled(const SimRun& run) {
  const json* python = Check(run, "env.python");
  return python != nullptr && python->value("data", json::object()).value("torch_installed", false);
}

std::string Reason(const SimRun& run, const std::string& id) {
  const json* c = Check(run, id);
  return c == nullptr ? "" : c->value("reason", std::string());
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "\n  " + l;
  return out;
}

// ---- the invariants ----------------------------------------------------------------------------

// Where NVML lists cards, nothing says there is no GPU or no driver.
std::vector<std::string> NoGpuWhereNvmlHasCards(const SimRun& run, const std::vector<Statement>& all) {
  std::vector<std::string> out;
  if (NvmlCount(run) == 0) return out;
  static const std::regex en(R"(\bno GPU\b|\bno (NVIDIA )?driver\b|sees no GPU|neither an NVIDIA driver|there is none here)");
  static const std::regex ru(R"(нет GPU|GPU нет|нет драйвера|драйвер NVIDIA не найден|видеокарт он не видит|ни драйвера NVIDIA)");
  for (const Statement& s : all)
    if (std::regex_search(s.text, en) || std::regex_search(s.text, ru)) out.push_back(s.where + ": " + s.text);
  return out;
}

// Where CUDA sees two cards or more, nothing says a pair is missing; where the driver has two or
// more, nothing calls the machine a one-card one.
std::vector<std::string> NoPairClaimWhereTwoAreVisible(const SimRun& run, const std::vector<Statement>& all) {
  std::vector<std::string> out;
  static const std::regex pair_claim(R"(needs at least 2 GPUs|нужно минимум 2 GPU|no pair to measure|there is no pair|обмениваться не с кем)");
  static const std::regex one_gpu(R"(\bone GPU\b|одна GPU|одна видеокарта)");
  for (const Statement& s : all) {
    if (CudaCount(run) >= 2 && std::regex_search(s.text, pair_claim)) out.push_back(s.where + ": " + s.text);
    if (NvmlCount(run) >= 2 && std::regex_search(s.text, one_gpu)) out.push_back(s.where + ": " + s.text);
  }
  return out;
}

std::vector<std::string> NoUninstallWithoutTorch(const SimRun& run, const std::vector<Statement>& all) {
  std::vector<std::string> out;
  if (TorchInstalled(run)) return out;
  for (const Statement& s : all)
    if (s.text.find("pip uninstall") != std::string::npos || s.text.find("--force-reinstall torch") != std::string::npos)
      out.push_back(s.where + ": " + s.text);
  return out;
}

// What a "not measured" must say for its check: the check's own reason where it has one, the flag
// that kept it out, or (a check that ran) --quick or the CPU run.
std::string CauseProblem(const SimRun& run, const std::string& check_id, const std::string& said) {
  const json* c = Check(run, check_id);
  if (c == nullptr)
    return said.find("not run") != std::string::npos || said.find("не запускался") != std::string::npos ? "" : "names no flag";
  const std::string status = c->value("status", std::string()), reason = c->value("reason", std::string());
  // A test that ran on the CPU: its WARN says "ran on the CPU although …: <why>"; the row says the same why.
  if (status == "WARN" && said.find("CPU") != std::string::npos && reason.find(": ") != std::string::npos)
    return said.find(reason.substr(reason.find(": ") + 2)) != std::string::npos ? "" : "not the check's cause «" + reason + "»";
  if ((status == "SKIP" || status == "FAIL" || status == "NOT RUN" || status == "WARN") && !reason.empty())
    return said.find(reason) != std::string::npos ? "" : "not the check's reason «" + reason + "»";
  if (said.find("--quick") != std::string::npos || said.find("CPU") != std::string::npos) return "";
  return "no cause";
}

std::vector<std::string> NotMeasuredNamesTheChecksCause(const SimRun& run) {
  std::vector<std::string> out;
  const std::string lang = run.report.value("lang", std::string("ru"));
  for (const json& s : run.report.value("sections", json::array())) {
    for (const json& row : s.value("data", json::object()).value("rows", json::array())) {
      if (!row.value("readings", json::array()).empty() || row.contains("failure")) continue;
      const std::string said = row["measured"].value(lang, std::string());
      if (said.empty() || said == "—" || said.rfind("yes", 0) == 0 || said.rfind("no (", 0) == 0 || said.rfind("partly", 0) == 0) continue;
      const std::string id = row.value("id", std::string());
      if (std::string p = CauseProblem(run, expect::RowCheckId(id), said); !p.empty()) out.push_back("row " + id + ": " + said + " — " + p);
    }
    for (const char* factor : {"training_time_factor", "communication_time_factor"}) {
      const json& f = s.value("data", json::object()).value(factor, json());
      const std::string said = f.is_object() ? f.value("missing_reason", json::object()).value(lang, std::string()) : "";
      for (const char* id : {"smoke.llama_train", "interconnect.allreduce"})
        if (said.rfind(std::string(id) + ": ", 0) == 0)
          if (std::string p = CauseProblem(run, id, said); !p.empty()) out.push_back(std::string(factor) + ": " + said + " — " + p);
    }
  }
  return out;
}

// The course page's own texts (data/course_expectations.json) appear only for its cards.
std::vector<std::string> NoCourseTextOnAnotherModel(const SimRun& run, bool course_machine) {
  std::vector<std::string> out;
  if (course_machine) return out;
  const json course = json::parse(*ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/data/course_expectations.json"));
  const std::string lang = run.report.value("lang", std::string("ru"));
  for (const json& s : run.report.value("sections", json::array()))
    for (const json& row : s.value("data", json::object()).value("rows", json::array())) {
      const std::string id = row.value("id", std::string());
      if (id == "llama_train") continue;  // the lessons' assumption for any card
      for (const json& c : course["rows"])
        if (c.value("id", "") == id && c.contains("course") &&
            row["reference"].value(lang, "") == c["course"]["text"].value(lang, "x"))
          out.push_back("row " + id + ": " + row["reference"].value(lang, ""));
    }
  return out;
}

// Pairs of statements that cannot both be true of one report.
std::vector<std::string> NoContradiction(const SimRun& run, const std::vector<Statement>& all) {
  std::vector<std::string> out;
  const bool torch = TorchInstalled(run);
  for (const Statement& s : all) {
    if (!torch && Check(run, "env.python") != nullptr &&
        (s.text.find("CPU-only build") != std::string::npos || s.text.find("PyTorch sees") != std::string::npos))
      out.push_back("torch is not installed, yet " + s.where + ": " + s.text);
    if (Reason(run, "interconnect.allreduce").empty() && Check(run, "interconnect.allreduce") != nullptr &&
        std::string(Check(run, "interconnect.allreduce")->value("status", "")) == "PASS" &&
        s.text.find("NCCL_P2P_DISABLE=1 to ~/.bashrc") != std::string::npos && Reason(run, "smoke.ddp").empty())
      out.push_back("all-reduce passed, yet the hang advice: " + s.where);
  }
  // «Всё совместимо» beside a torch rule left N/A.
  if (const json* compat = Check(run, "env.compat"); compat != nullptr && compat->value("summary", "") == "everything fits")
    for (const json& line : compat->value("data", json::object()).value("lines", json::array()))
      if (line.value("status", "") == "N/A" && line.value("rule", "").rfind("feature_", 0) != 0)
        out.push_back("everything fits, yet " + line.value("rule", "") + " is N/A: " + line.value("facts", ""));
  // "Send it to the authors, they will correct the estimates" only for a deviation nothing explains.
  for (const json& s : run.report.value("sections", json::array())) {
    if (s.value("id", "") != "send_to_authors") continue;
    const std::string summary = s["data"]["summary"].value("en", "");
    const bool send = s["paragraphs"].dump().find("They will correct the estimates") != std::string::npos;
    bool unexplained = false;
    const std::string flag = "Off by > 2×: ";
    for (size_t at = summary.find(flag); at != std::string::npos; at = summary.find(flag, at + 1)) {
      const std::string line = summary.substr(at + flag.size(), summary.find('\n', at) - at - flag.size());
      unexplained = unexplained || (line != "none" && line.find("the cause here") == std::string::npos);
    }
    if (send != unexplained) out.push_back("send-to-authors says " + std::string(send ? "send" : "do not send") + ": " + summary);
  }
  return out;
}

std::vector<std::string> CommandsParse(const std::vector<Statement>& all) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Statement& s : Advice(all))
    for (const std::string& p : CommandProblems(s.text))
      if (seen.insert(p).second) out.push_back(s.where + ": " + p);
  return out;
}

// ---- the cells ---------------------------------------------------------------------------------

struct Truth {
  SimRun run;
  std::vector<Statement> all;
};

Truth RunCell(SimOptions options, bool course_machine) {
  Truth t;
  t.run = RunLabCheck(options);
  EXPECT_TRUE(t.run.report.is_object()) << t.run.stderr_text.substr(0, 2000);
  t.all = Statements(t.run);
  EXPECT_EQ(Joined(NoGpuWhereNvmlHasCards(t.run, t.all)), "") << "«no GPU / no driver» where NVML lists cards";
  EXPECT_EQ(Joined(NoPairClaimWhereTwoAreVisible(t.run, t.all)), "") << "a pair claim where two cards are visible";
  EXPECT_EQ(Joined(NoUninstallWithoutTorch(t.run, t.all)), "") << "uninstall advice without an installed torch";
  EXPECT_EQ(Joined(NotMeasuredNamesTheChecksCause(t.run)), "") << "a «not measured» that is not its check's cause";
  EXPECT_EQ(Joined(NoCourseTextOnAnotherModel(t.run, course_machine)), "") << "the course machine's text on another model";
  EXPECT_EQ(Joined(NoContradiction(t.run, t.all)), "") << "two statements that contradict";
  EXPECT_EQ(Joined(CommandsParse(t.all)), "") << "a command that does not run";
  return t;
}

std::string Everything(const Truth& t) {
  std::string text;
  for (const Statement& s : t.all) text += s.where + ": " + s.text + "\n";
  return text;
}

// The interpreters: Debian's python3-torch (CPU-only) where installed; the same without its
// site-packages (no torch); one that does not start.
std::string DebianTorch() { return smoke::testing::TorchPython(); }

class BrokenPython {
 public:
  BrokenPython() : dir_(*MakePrivateTempDir("lab_check_broken_")) {
    path_ = dir_ + "/python";
    (void)WriteFileAtomically(path_, "#!/bin/sh\necho 'python: error while loading shared libraries: libpython3.11.so.1.0' >&2\nexit 127\n");
    chmod(path_.c_str(), 0755);
  }
  ~BrokenPython() { RemoveTree(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

// A Python without torch: Debian's without its site-packages, or /usr/bin/python3 as it is.
struct NoTorch {
  NoTorch() : wrapper(DebianTorch().empty() ? "/usr/bin/python3" : DebianTorch()) {}
  std::string path() const { return DebianTorch().empty() ? "/usr/bin/python3" : wrapper.path(); }
  smoke::testing::NoTorchPython wrapper;
};

const std::vector<std::string> kSmokeOnly = {"--lang", "en", "--only", "env.*,gpu.inventory,smoke.*"};

// The invariants have teeth: on a hand-made report of a machine whose NVML lists four cards,
// without torch, each of the issue's false statements is caught (no lab_check run needed).
TEST(Truth, TheInvariantsCatchTheIssuesStatements) {
  SimRun run;
  run.report = {{"lang", "en"}, {"meta", {{"quick", false}}}, {"sections", json::array()}};
  json nvml = json::array();
  for (int i = 0; i < 4; ++i) nvml.push_back({{"index", i}, {"name", "NVIDIA GeForce RTX 4080"}});
  json gpus = nvml;
  run.report["checks"] = {
      {{"id", "env.python"}, {"status", "WARN"}, {"reason", "torch is not installed in the interpreter /usr/bin/python3"},
       {"data", {{"torch_installed", false}}}},
      {{"id", "gpu.inventory"}, {"status", "PASS"}, {"data", {{"gpus", gpus}, {"nvml_gpus", nvml}}}},
      {{"id", "interconnect.allreduce"}, {"status", "SKIP"}, {"reason", "skipped: --skip-dist was given"}},
      {{"id", "smoke.llama_train"}, {"status", "SKIP"}, {"reason", "torch is not installed in the interpreter /usr/bin/python3"}},
      {{"id", "env.compat"}, {"status", "PASS"}, {"summary", "everything fits"},
       {"data", {{"lines", {{{"rule", "torch_cuda_vs_driver"}, {"status", "N/A"}, {"facts", "torch is not installed"}}}}}}}};
  run.report["sections"] = {{{"id", "expectations"},
                             {"data", {{"rows", {{{"id", "allreduce"}, {"readings", json::array()}, {"reference", {{"en", "W"}}},
                                                  {"measured", {{"en", "needs at least 2 GPUs"}}}},
                                                 {{"id", "llama_train"}, {"readings", json::array()}, {"reference", {{"en", "20–40"}}},
                                                  {"measured", {{"en", "PyTorch sees no GPU"}}}}}}}}}};
  run.stdout_text = "The course's hint: the driver (nvidia-smi) sees 4 GPU(s), PyTorch none: pip uninstall -y torch && pip install torch\n"
                    "no GPU: vLLM needs one\nrun `lab_check --only gpu.matmul,gpu.burn` on the node\n";
  const std::vector<Statement> all = Statements(run);
  EXPECT_FALSE(NoGpuWhereNvmlHasCards(run, all).empty());
  EXPECT_FALSE(NoPairClaimWhereTwoAreVisible(run, all).empty());
  EXPECT_FALSE(NoUninstallWithoutTorch(run, all).empty());
  EXPECT_FALSE(NotMeasuredNamesTheChecksCause(run).empty());
  EXPECT_FALSE(NoContradiction(run, all).empty());
  EXPECT_FALSE(CommandsParse(all).empty());
  // The course machine's GeForce wording on another model.
  const json course = json::parse(*ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/data/course_expectations.json"));
  for (const json& c : course["rows"])
    if (c.value("id", "") == "gpu_to_gpu")
      run.report["sections"][0]["data"]["rows"].push_back({{"id", "gpu_to_gpu"}, {"reference", {{"en", c["course"]["text"]["en"]}}}});
  EXPECT_FALSE(NoCourseTextOnAnotherModel(run, false).empty());
  EXPECT_TRUE(NoCourseTextOnAnotherModel(run, true).empty());
}

// The commonest first run: the course machine, the virtualenv not activated. Its first screen says
// torch is not installed in this interpreter and how to reach the course's, and nothing else about
// torch (no "PyTorch sees no GPU", no uninstall, no "smoke tests ran on the CPU", no "no GPU").
TEST(Truth, FirstRunOutsideTheVirtualenv) {
  NoTorch python;
  Truth t = RunCell({"course-4x4080.json", kSmokeOnly, {}, python.path()}, true);
  // The first screen: 50 lines of what a terminal shows, the progress lines (stderr) first.
  std::string screen;
  int lines = 0;
  for (char c : t.run.stderr_text + t.run.stdout_text) {
    if (lines >= 50) break;
    screen += c;
    lines += c == '\n';
  }
  EXPECT_NE(screen.find("torch is not installed in this interpreter"), std::string::npos) << screen;
  EXPECT_NE(screen.find("activate the course's environment"), std::string::npos) << screen;
  EXPECT_NE(screen.find("--python"), std::string::npos) << screen;
  // Every mention of torch on that screen is about its absence: the screen with its table's
  // wrapping undone (whitespace runs as one space), a window around each mention.
  std::string flat;
  for (char c : screen) {
    const bool space = c == ' ' || c == '\n';
    if (!(space && !flat.empty() && flat.back() == ' ')) flat += space ? ' ' : c;
  }
  // A check's name ("torch.compile: result and speed-up") is no statement about this torch.
  for (size_t at; (at = flat.find("torch.compile")) != std::string::npos;) flat.replace(at, 13, "the-compile-check");
  for (size_t at = flat.find("orch"); at != std::string::npos; at = flat.find("orch", at + 1)) {
    const std::string window = flat.substr(at > 150 ? at - 150 : 0, 300);
    const bool about_absence = window.find("not installed") != std::string::npos || window.find("no PyTorch") != std::string::npos ||
                               window.find("activate the course's environment") != std::string::npos;
    EXPECT_TRUE(about_absence) << "the first screen says something else about torch: …" << window << "…";
  }
  for (const char* other : {"CPU-only", "PyTorch sees", "pip uninstall", "without CUDA", "ran on the CPU", "no GPU"})
    EXPECT_EQ(flat.find(other), std::string::npos) << other << ": " << flat;
  // The issue's statements, each gone: «Llama training, TFLOPS — PyTorch sees no GPU»; the course
  // hint «the driver sees 4 GPU(s), PyTorch none: … pip uninstall»; «the smoke tests ran on the
  // CPU» when none ran; «no GPU: vLLM needs one» on a machine with four.
  const std::string all = Everything(t);
  EXPECT_EQ(all.find("PyTorch sees no GPU"), std::string::npos) << all;
  EXPECT_EQ(all.find("PyTorch none"), std::string::npos) << all;
  EXPECT_EQ(all.find("ran on the CPU"), std::string::npos) << all;
  EXPECT_EQ(all.find("vLLM needs one"), std::string::npos) << all;
  // The compatibility check names the torch rule it could not judge instead of "everything fits".
  EXPECT_NE(Check(t.run, "env.compat")->value("summary", "").find("not judged"), std::string::npos);
}

// Debian's CPU-only torch beside the driver's four cards: a WARN that says so with the fix, in the
// compatibility check and in every smoke test that ran on the CPU; never a PASS "no GPU: two
// processes over gloo, as the course page describes"; env.python no longer guesses the driver
// from /proc (the simulator has none).
TEST(Truth, CpuOnlyTorchOnAGpuMachine) {
  const std::string python = DebianTorch();
  if (python.empty()) GTEST_SKIP() << "no Python with torch here (Debian's python3-torch)";
  // smoke.ddp's own CPU run (two torch.distributed processes, the matrix's slowest cell by far) is
  // judged in tests/smoke/verdict_test.cpp from its probe's result; here the Llama run stands for it.
  Truth t = RunCell({"course-4x4080.json", {"--lang", "en", "--only", "env.*,gpu.inventory,smoke.llama_train,smoke.vllm"}, {}, python},
                    true);
  EXPECT_EQ(Verdict(t.run, "env.compat"), "WARN") << CheckText(t.run, "env.compat");
  EXPECT_NE(Reason(t.run, "env.compat").find("is_available() returns False"), std::string::npos) << CheckText(t.run, "env.compat");
  EXPECT_NE(CheckText(t.run, "env.compat").find("--index-url https://download.pytorch.org/whl/cu"), std::string::npos);
  for (const char* id : {"smoke.llama_train"}) {
    EXPECT_EQ(Verdict(t.run, id), "WARN") << id << ": " << CheckText(t.run, id);
    EXPECT_NE(CheckText(t.run, id).find("CPU-only build"), std::string::npos) << CheckText(t.run, id);
    EXPECT_EQ(CheckText(t.run, id).find("as the course page describes"), std::string::npos) << CheckText(t.run, id);
  }
  EXPECT_NE(CheckText(t.run, "env.python").find("CPU-only build"), std::string::npos);
  EXPECT_TRUE(HasHint(t.run, "no_gpu_seen"));  // its action (reinstall torch) answers this cause
  const std::string all = Everything(t);
  EXPECT_EQ(all.find("vLLM needs one"), std::string::npos) << all;
}

// No torch, --quick --skip-dist on the course machine: «all-reduce … needs at least 2 GPUs» on a
// 4-GPU machine and «Matmul FP16 — PASS, without this figure» (--quick measures BF16 only) are gone.
TEST(Truth, QuickAndSkipDistSayTheirFlags) {
  NoTorch python;
  Truth t = RunCell({"course-4x4080.json", {"--lang", "en", "--quick", "--skip-dist", "--only", "env.*,gpu.inventory,gpu.matmul,interconnect.*"}, {},
                     python.path()},
                    true);
  const std::string all = Everything(t);
  EXPECT_EQ(all.find("without this figure"), std::string::npos) << all;
  EXPECT_NE(ExpectationRow(t.run, "matmul_fp16")["measured"].value("en", "").find("--quick"), std::string::npos);
  EXPECT_NE(ExpectationRow(t.run, "allreduce")["measured"].value("en", "").find("--skip-dist"), std::string::npos);
}

// CUDA_VISIBLE_DEVICES="" on the course machine (in Russian, the report's default): the cards are
// hidden, not absent; the variable and its value are named, with the fix; never «драйвер NVIDIA
// видит ноль GPU» or «нет ни драйвера NVIDIA, ни torch с CUDA».
TEST(Truth, EveryCardHiddenByTheVariable) {
  NoTorch python;
  Truth t = RunCell({"course-4x4080.json", {"--quick", "--only", "env.*,gpu.*,interconnect.*"}, {{"CUDA_VISIBLE_DEVICES", ""}}, python.path()},
                true);
  EXPECT_EQ(Verdict(t.run, "gpu.inventory"), "WARN");
  const std::string inventory = CheckText(t.run, "gpu.inventory");
  EXPECT_NE(inventory.find("CUDA_VISIBLE_DEVICES=\"\""), std::string::npos) << inventory;
  EXPECT_NE(inventory.find("unset CUDA_VISIBLE_DEVICES"), std::string::npos) << inventory;
  EXPECT_EQ(Verdict(t.run, "gpu.matmul"), "SKIP");
  EXPECT_NE(Reason(t.run, "gpu.matmul").find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

// CUDA_VISIBLE_DEVICES=0 on the course machine: «one GPU: there is no pair to measure», «the factor
// does not apply» and «the driver (nvidia-smi) sees 1 GPU» are gone; the variable is the cause.
TEST(Truth, OneCardLeftVisibleByTheVariable) {
  NoTorch python;
  Truth t = RunCell({"course-4x4080.json", {"--lang", "en", "--quick", "--only", "env.*,gpu.inventory,gpu.p2p,interconnect.*"},
                     {{"CUDA_VISIBLE_DEVICES", "0"}}, python.path()},
                    true);
  EXPECT_EQ(Verdict(t.run, "gpu.inventory"), "WARN");
  for (const char* id : {"gpu.p2p", "interconnect.allreduce"})
    EXPECT_NE(Reason(t.run, id).find("CUDA_VISIBLE_DEVICES=0 leaves 1 of the driver's 4 GPUs"), std::string::npos) << Reason(t.run, id);
  const std::string all = Everything(t);
  EXPECT_EQ(all.find("does not apply"), std::string::npos) << all;
  EXPECT_EQ(all.find("sees 1 GPU"), std::string::npos) << all;
}

// An NVSwitch board whose fabric manager is down: eight H100s, not "no GPU", and the H100's
// references, not the RTX 4080's.
TEST(Truth, FabricManagerDown) {
  NoTorch python;
  Truth t = RunCell({"driver-init-802-fabric-manager.json", {"--lang", "en", "--quick", "--only", "env.*,gpu.*,interconnect.*"}, {}, python.path()},
                false);
  EXPECT_EQ(Verdict(t.run, "gpu.inventory"), "FAIL");
  EXPECT_NE(ExpectationRow(t.run, "matmul_bf16")["reference"].value("en", "").find("datasheet 989.5"), std::string::npos)
      << ExpectationRow(t.run, "matmul_bf16").dump();
  EXPECT_EQ(ExpectationRow(t.run, "gpu_to_gpu")["reference"].value("en", "").find("host memory"), std::string::npos)
      << "NVLink boards, links unknown: " << ExpectationRow(t.run, "gpu_to_gpu").dump();
}

// --only: a factor whose check was not chosen says so, not a bare "not run".
TEST(Truth, OnlySaysWhatWasNotChosen) {
  Truth t = RunCell({"course-4x4080.json", {"--lang", "en", "--quick", "--only", "gpu.matmul"}, {}, "/bin/false"}, true);
  for (const Statement& s : t.all)
    if (s.where.find("_factor missing") != std::string::npos) {
      EXPECT_NE(s.text.find("not chosen by --only"), std::string::npos) << s.text;
    }
}

// An interpreter that does not start gets no package advice («pip install -r
// homework/requirements-llm.txt», «pip install bitsandbytes», «vLLM is skipped by design»).
TEST(Truth, BrokenInterpreterGetsNoPackageAdvice) {
  BrokenPython python;
  Truth t = RunCell({"course-4x4080.json", kSmokeOnly, {}, python.path()}, true);
  const std::string all = Everything(t);
  for (const char* advice : {"requirements-llm.txt", "pip install bitsandbytes", "by design"})
    EXPECT_EQ(all.find(advice), std::string::npos) << advice << "\n" << all;
  EXPECT_EQ(Verdict(t.run, "env.python"), "FAIL");
}

// No interpreter at all (none given, none on PATH).
TEST(Truth, NoInterpreterAtAll) {
  Truth t = RunCell({"course-4x4080.json", kSmokeOnly, {}, ""}, true);
  EXPECT_EQ(Verdict(t.run, "env.python"), "SKIP");
}

// One H200: no GeForce wording ("without P2P … host memory"), no "links between cards unknown".
TEST(Truth, SingleH200HasItsOwnReferences) {
  Truth t = RunCell({"single-h200.json", {"--lang", "en", "--quick", "--only", "gpu.inventory,gpu.p2p,interconnect.*"}, {}, "/bin/false"}, false);
  const std::string all = Everything(t);
  EXPECT_EQ(all.find("links between the cards is unknown"), std::string::npos) << all;
  EXPECT_EQ(ExpectationRow(t.run, "gpu_to_gpu")["reference"].value("en", "").find("host memory"), std::string::npos);
}

// A riser: the all-reduce is slow, it never hung. The advice is the link's (slot, riser, BIOS), not
// NCCL_P2P_DISABLE or IOMMU; the deviation is this machine's fault, not the course's estimate.
TEST(Truth, SlowAllReduceOnARiserIsNotAHang) {
  Truth t = RunCell({"course-slow-riser.json", {"--lang", "en", "--quick", "--only", "gpu.host_device_copy,gpu.p2p,interconnect.*"}, {}, "/bin/false"},
                    true);
  const std::string all = Everything(t);
  EXPECT_EQ(all.find("NCCL_P2P_DISABLE=1 to ~/.bashrc"), std::string::npos) << all;
  EXPECT_EQ(all.find("IOMMU"), std::string::npos) << all;
  EXPECT_EQ(all.find("They will correct the estimates"), std::string::npos) << all;
  // GeForce cards have no NVLink: no bridge advice for the pairs the riser slows.
  EXPECT_EQ(all.find("NVLink bridges"), std::string::npos) << all;
}

}  // namespace
}  // namespace labcheck::sim
