#include "app/app.h"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/all_checks.h"
#include "app/burn_command.h"
#include "app/check_command.h"
#include "app/cli_language.h"
#include "app/memtest_command.h"
#include "calc/calc_commands.h"
#include "cluster/cluster_command.h"
#include "cluster/dist_smoke_command.h"
#include "core/build_commit.h"
#include "gpu/gpu_checks.h"
#include "gpu/live_gpus.h"
#include "node_check/node_check_command.h"
#include "node_check/outputs/node_fleet.h"
#include "probes/installed_version.h"
#include "probes/interpreter.h"
#include "probes/python_probe.h"
#include "report/report_layout.h"
#include "runner/check_selection.h"
#include "runner/child_job.h"
#include "saved_reports/report_commands.h"

namespace labcheck {
namespace {

// The path of this binary, for checks that run parts of it as a child process.
std::string SelfExe(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  return argv0;
}

// `internal-child` is how the binary runs its own risky parts; it bypasses the user CLI.
[[noreturn]] void RunInternalChild(int argc, char** argv) {
  std::vector<std::string> args(argv + 3, argv + argc);
  RegisterGpuChildJobs();  // the child must know the jobs before it dispatches
  const int code = RunChildJobMain(argv[2], args);
  // The result is printed. Leave without exit's teardown: NVIDIA's libraries stay loaded until
  // here (gpu::KeepUntilExit), and their destructors at exit can hang or crash on a GPU in a
  // bad state; the OS frees what they hold. fflush(nullptr): NCCL's debug file, our stdout.
  std::fflush(nullptr);
  std::_Exit(code);
}

// The options of the plain `lab_check` run (no subcommand).
void AddCheckOptions(CLI::App& app, bool ru, CheckCommandOptions& options, std::string& lang) {
  app.add_flag("--quick", options.quick,
               ru ? "окружение и по одному короткому замеру, без смоук-тестов (около минуты)"
                  : "environment and one short measurement each, no smoke tests (about a minute)");
  app.add_flag("--skip-dist", options.skip_dist,
               ru ? "без torch.distributed и NCCL (если all-reduce или DDP зависает)"
                  : "no torch.distributed or NCCL work (when all-reduce or DDP hangs)");
  app.add_option("--out", options.out,
                 ru ? "путь Markdown-отчёта; JSON ляжет рядом с расширением .json"
                    : "Markdown report path; the JSON goes beside it with .json")
      ->capture_default_str();
  app.add_option("--html", options.html,
                 ru ? "путь HTML-отчёта с графиками (по умолчанию рядом с Markdown, .html)"
                    : "HTML report with charts (default: beside the Markdown report, .html)");
  app.add_flag("--json-only", options.json_only,
               ru ? "напечатать только JSON, без таблиц и Markdown" : "print only the JSON, no tables or Markdown");
  app.add_flag("-v,--verbose", options.verbose,
               ru ? "все таблицы проверок и разделов в терминале, как в отчёте (по умолчанию — краткий итог)"
                  : "every check's and section's tables in the terminal, as in the report (default: a brief summary)");
  app.add_option("--lang", lang, ru ? "язык отчёта" : "report language")
      ->check(CLI::IsMember({"ru", "en"}))
      ->capture_default_str();
  app.add_option("--python", options.python,
                 ru ? "интерпретатор для Python-проб (по умолчанию: активный virtualenv, иначе python3 из PATH)"
                    : "interpreter for the Python probes (default: the active virtualenv's, else python3 on PATH)");
  app.add_option("--only", options.only,
                 ru ? "только эти проверки (и те, чьи данные они читают), через запятую: gpu.health,gpu.*"
                    : "only these checks (and those whose data they read), comma-separated: gpu.health,gpu.*")
      ->delimiter(',');
  app.add_option("--timeout-scale", options.timeout_scale,
                 ru ? "множитель всех тайм-аутов (медленная машина)" : "multiplies every timeout (slow machine)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

// The vLLM installed in the interpreter that --python names (or the one picked without it): the
// version in the name of its vllm-<version>.dist-info folder in that interpreter's site-packages.
// Starting the interpreter imports only the standard library; nullopt when there is no Python or
// no vLLM.
std::optional<std::string> InstalledVllmVersion(const std::string& requested_python, double timeout_scale) {
  const Result<std::string> python = probes::ResolvePython(requested_python);
  if (!python.ok()) return std::nullopt;
  probes::Interpreter interpreter(*python, timeout_scale);
  return probes::InstalledDistributionVersion(interpreter, "vllm");
}

// Every subcommand; each stores its exit code in *subcommand_exit when it runs.
void AddSubcommands(CLI::App& app, Lang* parsed_lang, Lang peeked, const std::string& self_exe, const CheckCommandOptions* options,
                    int* subcommand_exit) {
  calc::CalcEnvironment calc_env;
  calc_env.lang = parsed_lang;
  calc_env.live_gpus = [self_exe]() {
    std::vector<calc::LiveGpu> gpus;
    auto live = ReadLiveGpus(self_exe, 30);
    if (!live.ok()) return gpus;
    for (const auto& g : *live) gpus.push_back({g.name, g.memory_total_gib});
    return gpus;
  };
  calc_env.installed_vllm_version = [options]() { return InstalledVllmVersion(options->python, options->timeout_scale); };
  calc::AddCalcSubcommands(app, calc_env, subcommand_exit);
  saved_reports::AddReportSubcommands(app, parsed_lang, subcommand_exit, node_check::CompareFleet);
  cluster::AddClusterSubcommand(app, parsed_lang, peeked, self_exe, subcommand_exit);
  cluster::AddDistSmokeSubcommand(app, parsed_lang, peeked, subcommand_exit);
  node_check::AddNodeCheckSubcommand(app, parsed_lang, peeked, self_exe, subcommand_exit);
  AddBurnSubcommand(app, parsed_lang, subcommand_exit, self_exe);
  AddMemtestSubcommand(app, parsed_lang, subcommand_exit, self_exe);
}

// `lab_check internal-parse-only ARGS…`: ARGS parsed by the real command line with every
// subcommand's action taken out, and --only's patterns matched against the checks, as a run would
// before it starts; nothing runs. The tests check every lab_check command a hint or a finding's
// action names with it (tests/sim/command_lines.cpp), so advice never names a flag or check that
// does not exist.
constexpr const char* kParseOnly = "internal-parse-only";

void TakeOutActions(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->callback(std::function<void()>());
    TakeOutActions(*sub);
  }
}

int ParsedOnly(const CLI::App& app, const CheckCommandOptions& options, Lang lang) {
  if (!app.get_subcommands().empty()) return kExitOk;
  if (const std::string unmatched = UnmatchedPattern(AllChecks(), options.only); !unmatched.empty()) {
    std::fprintf(stderr, lang == Lang::Ru ? "lab_check: --only: «%s» не подходит ни к одной проверке\n"
                                          : "lab_check: --only: '%s' matches no check\n",
                 unmatched.c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

int RunApp(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "internal-child") RunInternalChild(argc, argv);
  std::vector<char*> shifted;
  const bool parse_only = argc >= 2 && std::string(argv[1]) == kParseOnly;
  if (parse_only) {
    shifted.assign(argv, argv + argc);
    shifted.erase(shifted.begin() + 1);
    argc = static_cast<int>(shifted.size());
    argv = shifted.data();
  }

  // --lang is read before the command line is built, so that the help, every subcommand's
  // description and CLI11's own messages follow it; CLI11 validates the value afterwards.
  const Lang peeked = PeekLang(argc, argv);
  const bool ru = peeked == Lang::Ru;
  CLI::App app(ru ? "lab_check — проверка лаборатории: окружение, замеры GPU и CPU, связь между картами, "
                    "смоук-тесты PyTorch и отчёт «Ожидалось в курсе → у вас»."
                  : "lab_check — checks your lab machine: environment, GPU and CPU benchmarks, GPU-to-GPU "
                    "links, PyTorch smoke tests, and the 'Expected → measured' report.",
               "lab_check");
  LocalizeCli(app, peeked);
  app.fallthrough();
  // The commit too: a binary copied to many nodes says exactly which source it came from.
  app.set_version_flag("--version",
                       "lab_check " + ToolVersionLine(LAB_CHECK_VERSION, std::string(BuildCommit())),
                       ru ? "показать версию и коммит и выйти" : "print the version and commit and exit");

  CheckCommandOptions options;
  std::string lang = "ru";
  AddCheckOptions(app, ru, options, lang);

  // Subcommands read the language when they run, after parsing; until then it is the peeked one.
  static Lang parsed_lang = Lang::Ru;
  parsed_lang = ru ? Lang::Ru : Lang::En;
  int subcommand_exit = kExitOk;
  const std::string self_exe = SelfExe(argv[0]);
  AddSubcommands(app, &parsed_lang, peeked, self_exe, &options, &subcommand_exit);
  FinishLocalizingCli(app, peeked);
  if (parse_only) TakeOutActions(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = ReportParseError(app, e, peeked);
    return code == 0 ? kExitOk : kExitUsage;
  }
  options.lang = lang == "en" ? Lang::En : Lang::Ru;
  if (parse_only) return ParsedOnly(app, options, options.lang);
  if (app.get_subcommands().empty()) return RunCheckCommand(options, self_exe);
  return subcommand_exit;
}

}  // namespace labcheck
