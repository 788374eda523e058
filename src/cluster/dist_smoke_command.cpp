#include "cluster/dist_smoke_command.h"

#include "cluster/cluster_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/build_commit.h"
#include "platform/files.h"
#include "probes/interpreter.h"
#include "report/anonymize.h"
#include "report/json_writer.h"
#include "report/publish.h"
#include "report/report.h"
#include "report/terminal_writer.h"
#include "runner/cancel.h"
#include "smoke/dist_run.h"
#include "smoke/smoke_catalog.h"
#include "smoke/verdict.h"

namespace labcheck::cluster {

int RunDistSmoke(const DistSmokeOptions& options, Lang lang) {
  const bool ru = lang == Lang::Ru;
  const smoke::SmokeTest* test = smoke::FindSmokeTest(options.test);
  if (test == nullptr || (options.test != "ddp" && options.test != "fsdp2")) {
    std::fprintf(stderr, "lab_check smoke-dist: --test %s: use ddp or fsdp2\n", options.test.c_str());
    return kExitUsage;
  }
  if (options.nnodes > 1 && options.rdzv_endpoint.find(':') == std::string::npos) {
    std::fprintf(stderr, ru ? "lab_check smoke-dist: нужен --rdzv-endpoint ХОСТ:ПОРТ (узел, где слушает рандеву torchrun), "
                              "одинаковый на всех узлах\n"
                            : "lab_check smoke-dist: give --rdzv-endpoint HOST:PORT (a node where torchrun's rendezvous "
                              "listens), the same on every node\n");
    return kExitUsage;
  }
  Result<std::string> python = probes::ResolvePython(options.python);
  if (!python.ok()) {
    std::fprintf(stderr, "lab_check smoke-dist: %s\n", python.status().message().c_str());
    return kExitUsage;
  }
  smoke::DistRunRequest request;
  request.test = options.test;
  request.budget_s = options.timeout_s;
  request.launch_args = {"--nnodes", std::to_string(options.nnodes), "--rdzv-endpoint", options.rdzv_endpoint,
                         "--rdzv-id", options.rdzv_id, "--nproc-per-node", std::to_string(options.nproc_per_node)};
  const CancelToken cancel = InstallInterruptHandlers();
  Report report;
  report.lang = lang;
  report.meta.tool_version = LAB_CHECK_VERSION;
  report.meta.tool_commit = std::string(BuildCommit());
  report.meta.started_at = UtcTimestamp();
  // This command's own run of the interpreter: started once, and a hang is its FAIL, with the
  // reason and hint every part of lab_check gives for it.
  probes::Interpreter interpreter(*python, 1);
  smoke::TestOutcome outcome = smoke::RunDistributedTest(request, interpreter, cancel);
  report.meta.finished_at = UtcTimestamp();
  report.meta.interrupted = cancel.cancelled();

  // Rank 0 was on another node: that node reports; this one only says its ranks are done.
  if (outcome.status() == "ran" && outcome.result->value("elsewhere", false)) {
    const nlohmann::json& r = *outcome.result;
    if (options.json) {
      std::cout << nlohmann::json({{"test", options.test}, {"elsewhere", true}, {"local_global_ranks", r.value("local_global_ranks", nlohmann::json::array())},
                                   {"world_size", r.value("world_size", 0)}}).dump() << "\n";
    } else {
      std::cout << fmt::format(fmt::runtime(ru ? "smoke-dist {}: ранги этого узла {} закончили; сравнение с одним процессом пишет узел ранга 0\n"
                                  : "smoke-dist {}: this node's ranks {} finished; the node of rank 0 reports the comparison\n"),
                               options.test, r.value("local_global_ranks", nlohmann::json::array()).dump());
    }
    return kExitOk;
  }
  CheckResult result = interpreter.unresponsive()
                           ? probes::UnresponsiveResult(test->check_id, *interpreter.unresponsive(), /*found_now=*/true,
                                                        outcome.lost_error)
                           : smoke::JudgeOutcome(*test, outcome, nlohmann::json::object(), *python);
  if (outcome.result) {
    for (const char* key : {"nnodes", "world_size", "local_ranks", "backend", "device"})
      if (outcome.result->contains(key)) result.data[key] = (*outcome.result)[key];
  }
  report.checks.push_back(result);
  PublishOptions publish;
  publish.command = "lab_check smoke-dist";
  publish.markdown_path = options.out.empty() ? "journal/cluster-" + options.test + ".md" : options.out;
  publish.json_stdout = options.json;
  return PublishReport(report, publish);
}

void AddDistSmokeSubcommand(CLI::App& app, const Lang* lang, Lang help_lang, int* exit_code) {
  auto options = std::make_shared<DistSmokeOptions>();
  auto h = [help_lang](const char* ru, const char* en) { return T(ru, en).In(help_lang); };
  CLI::App* cmd = app.add_subcommand("smoke-dist", h("DDP/FSDP2 смоук-тест между узлами (запустить на каждом узле)",
                                                     "the DDP/FSDP2 smoke test across nodes (run it on every node)"));
  cmd->add_option("--test", options->test, h("ddp или fsdp2", "ddp or fsdp2"))->check(CLI::IsMember({"ddp", "fsdp2"}))->capture_default_str();
  cmd->add_option("--nnodes", options->nnodes, h("число узлов", "number of nodes"))->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--rdzv-endpoint", options->rdzv_endpoint, h("HOST:PORT рандеву c10d для torchrun, одинаковый на всех узлах", "HOST:PORT of torchrun's c10d rendezvous, the same on every node"));
  cmd->add_option("--rdzv-id", options->rdzv_id, h("id рандеву, одинаковый на всех узлах", "rendezvous id, the same on every node"))->capture_default_str();
  cmd->add_option("--nproc-per-node", options->nproc_per_node, h("рангов на этом узле (по умолчанию: по одному на GPU, или 2 на CPU)", "ranks on this node (default: one per GPU, or 2 on CPU)"));
  cmd->add_option("--python", options->python, h("интерпретатор с PyTorch", "interpreter with PyTorch"));
  cmd->add_option("--timeout", options->timeout_s, h("секунд на весь тест", "seconds for the whole test"))->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--out", options->out, h("Markdown-отчёт (по умолчанию journal/cluster-<test>.md)", "Markdown report (default journal/cluster-<test>.md)"));
  cmd->add_flag("--json", options->json, h("только JSON", "JSON only"));
  cmd->callback([options, lang, exit_code] { *exit_code = RunDistSmoke(*options, *lang); });
}

}  // namespace labcheck::cluster
