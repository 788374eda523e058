// Which drains only a reboot can end. A finding that stays until the node boots again (a GPU off
// the bus, a fatal NVSwitch SXid, a kernel-log XID whose catalog bucket is a reboot or support:
// the log starts afresh only at boot; the driver's "node reboot" recovery action) would read as
// healthy to nothing before the reboot, but a drain over it must not be resumed by a run that
// merely missed it. The only place that decides this: issue 44's per-finding "clears" field
// (data/) replaces these bodies; nothing else looks at finding items or texts for it.
#pragma once
#include <string>

#include "node_check/node_verdict.h"

namespace labcheck::node_check {

// True when a finding of `verdict` clears only with a reboot.
bool NeedsReboot(const NodeVerdict& verdict);

// The same judged from a Slurm reason lab_check wrote (English or Russian), for a drain whose
// state file was lost: a reason that names such a finding is not resumed without the record.
bool ReasonNeedsReboot(const std::string& reason);

}  // namespace labcheck::node_check
