// The smoke tests of the PyTorch stack (item 4 of the course page's «Что проверяется»): their
// check ids, titles, time budgets, and how each is run. One table, read by the registration, the
// runners and the docs (docs/smoke-tests.md).
#pragma once
#include <string>
#include <vector>

#include "core/text.h"

namespace labcheck::smoke {

// How a test's probe is run.
enum class Launch {
  Shared,    // in the one interpreter that runs all Shared tests (smoke_run.py)
  Isolated,  // prechecked in the shared interpreter, then run alone when its package is there
  Torchrun,  // its own launch of torch.distributed.run (smoke_dist_launch.py)
};

struct SmokeTest {
  std::string name;      // the probe's name for it: "llama_train"
  std::string check_id;  // "smoke.llama_train"
  Text title;
  Launch launch = Launch::Shared;
  double budget_s = 60;  // the test's own time budget, before --timeout-scale
};

// In report order: distributed first, as on the course page.
const std::vector<SmokeTest>& SmokeTests();
const SmokeTest* FindSmokeTest(const std::string& name);

}  // namespace labcheck::smoke
