// Which drains only a reboot can end: a finding whose clearing rule (data/finding_codes.json,
// "clears") is a reboot: a GPU off the bus, a fatal NVSwitch SXid, a kernel-log XID of the reboot
// or support class (the log starts afresh only at boot), the driver's "node reboot" recovery
// action. A drain over one must not be resumed by a run that merely missed it.
#pragma once
#include <string>

#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {

// True when a failing finding of `verdict` clears only with a reboot.
bool NeedsReboot(const NodeVerdict& verdict);

// The same judged from a Slurm reason lab_check wrote, for a drain whose state file was lost: by
// the codes in it ("lab_check: LC302 GPU1 …"); a reason of a lab_check older than the codes by
// the words of those findings' texts.
bool ReasonNeedsReboot(const std::string& reason);

}  // namespace labcheck::node_check
