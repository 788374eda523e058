// `lab_check allreduce`: one process per GPU under srun, mpirun or torchrun; rank 0 writes one
// merged report (journal/cluster-report.md and .json), the other ranks write nothing unless
// --rank-reports. README "Cluster" has the launch lines; docs/multi-node.md the design.
#pragma once
#include <optional>
#include <string>

#include "core/cli_forward.h"

#include "core/text.h"

namespace labcheck::cluster {

struct ClusterOptions {
  bool json = false;
  bool quick = false;
  std::string out = "journal/cluster-report.md";
  std::optional<int> port;
  double timeout_s = 600;
  double stall_s = 30;
  std::optional<size_t> max_mib;
  bool rank_reports = false;
};

int RunClusterAllReduce(const ClusterOptions& options, Lang lang, const std::string& self_exe);

// Help texts in `help_lang` (the --lang peeked before parsing); `lang` is the parsed one.
void AddClusterSubcommand(CLI::App& app, const Lang* lang, Lang help_lang, const std::string& self_exe, int* exit_code);

}  // namespace labcheck::cluster
