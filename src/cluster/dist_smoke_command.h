// `lab_check smoke-dist`: the DDP / FSDP2 smoke test across nodes. Run it once on every node; each
// starts its ranks through torchrun's own code (torch.distributed.run, `--nnodes N --rdzv-backend
// c10d --rdzv-endpoint HOST:PORT`), and they train together; the node that holds global rank 0
// compares the result with one process, as on one node (docs/smoke-tests.md), and writes the
// report. The other nodes say that their ranks finished.
#pragma once
#include <string>

#include "core/cli_forward.h"

#include "core/text.h"

namespace labcheck::cluster {

struct DistSmokeOptions {
  std::string test = "ddp";
  int nnodes = 2;
  std::string rdzv_endpoint;
  std::string rdzv_id = "lab_check";
  int nproc_per_node = 0;  // 0: one per GPU, or two CPU ranks without GPUs (as on one node)
  std::string python;
  double timeout_s = 300;
  bool json = false;
  std::string out;  // default journal/cluster-<test>.md
};

int RunDistSmoke(const DistSmokeOptions& options, Lang lang);

// Help texts in `help_lang` (the --lang peeked before parsing).
void AddDistSmokeSubcommand(CLI::App& app, const Lang* lang, Lang help_lang, int* exit_code);

}  // namespace labcheck::cluster
