// What --drain does with Slurm after a verdict, as the on-call engineer would (issue 44): drain a
// sick node, but never over a reason someone else set and never past the drain cap; resume a node
// it drained itself once it is healthy again, after --resume-after healthy runs in a row, and,
// when its findings clear only with a reboot, only from another boot. A pure decision on what
// Slurm shows (slurm_nodes.h) and what the state file remembers (resume_state.h), so that every
// branch is tested without Slurm; slurm_policy.h runs it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "node_check/slurm/drain_cap.h"
#include "node_check/slurm/resume_state.h"
#include "node_check/slurm/slurm_nodes.h"

namespace labcheck::node_check {

enum class DrainAction {
  None,               // healthy, and not out of service by lab_check's drain: nothing to do
  Drain,              // unhealthy: drain (again, with today's findings, when it is already lab_check's)
  HeldByCap,          // unhealthy, but draining it would pass --drain-cap
  LeftAsIs,           // out of service with a reason lab_check did not set: never touched
  Resume,             // healthy, drained by lab_check, enough healthy runs, and rebooted where needed
  WaitHealthyRuns,    // healthy, drained by lab_check, fewer healthy runs in a row than --resume-after
  WaitReboot,         // healthy, but drained over a reboot-class finding in this same boot
  NoRecordForReboot,  // healthy, its reason needs a reboot, and no state file says in which boot
  NotWholeNode,       // healthy, but only a job's GPUs were judged: the drain may be over another card
};
const char* DrainActionKey(DrainAction action);  // "drained", "held_by_cap", ... (--json's drain.action)

struct DrainPolicy {
  DrainCap cap = kDefaultDrainCap;
  int resume_after = 1;  // LBNL NHC resumes at its first healthy run (helpers/node-mark-online)
};

struct DrainInputs {
  bool healthy = false;
  bool needs_reboot = false;                      // NeedsReboot(verdict)
  bool whole_node = true;                         // false under a job that was given some GPUs (job_gpus.h)
  std::string node;
  const std::vector<SlurmNode>* nodes = nullptr;  // nullptr: Slurm's list could not be read
  std::optional<ResumeState> state;               // nullopt: no state file
  std::string boot_id;
};

enum class StateChange { Keep, Write, Remove };

struct DrainDecision {
  DrainAction action = DrainAction::None;
  std::optional<SlurmNode> slurm;  // this node as Slurm shows it
  std::optional<CapCount> cap;     // counted when a drain would add a node
  StateChange state_change = StateChange::Keep;
  ResumeState next;                // what to write with StateChange::Write
};

DrainDecision DecideDrain(const DrainInputs& in, const DrainPolicy& policy);

}  // namespace labcheck::node_check
