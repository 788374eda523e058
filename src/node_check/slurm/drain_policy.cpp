#include "node_check/slurm/drain_policy.h"

#include "node_check/slurm/needs_reboot.h"

namespace labcheck::node_check {

namespace {

// An unhealthy run: the count of healthy runs starts again (the file goes, unless a reboot-class
// drain must remember its boot).
DrainDecision Unhealthy(const DrainInputs& in, const DrainPolicy& policy, DrainDecision d) {
  d.state_change = StateChange::Remove;
  if (d.slurm && d.slurm->OutOfService() && !d.slurm->DrainedByLabCheck()) {
    d.action = DrainAction::LeftAsIs;  // NHC's node-mark-offline keeps a note it did not write, too
    return d;
  }
  // The cap counts drains this one would add; a node lab_check already drained is one of them.
  if (!(d.slurm && d.slurm->DrainedByLabCheck()) && in.nodes) {
    d.cap = CountDrainedByLabCheck(*in.nodes, in.node, policy.cap);
    if (d.cap && d.cap->reached()) {
      d.action = DrainAction::HeldByCap;
      return d;
    }
  }
  d.action = DrainAction::Drain;
  if (in.needs_reboot) {
    d.state_change = StateChange::Write;
    d.next.reboot_boot_id = in.boot_id;
  }
  return d;
}

DrainDecision Healthy(const DrainInputs& in, const DrainPolicy& policy, DrainDecision d) {
  if (!d.slurm || !d.slurm->OutOfService()) return d;
  if (!d.slurm->DrainedByLabCheck()) {
    d.action = DrainAction::LeftAsIs;
    return d;
  }
  if (!in.whole_node) {
    d.action = DrainAction::NotWholeNode;
    return d;
  }
  if (in.state && in.state->reboot_boot_id && *in.state->reboot_boot_id == in.boot_id) {
    d.action = DrainAction::WaitReboot;  // runs in the boot it was drained in do not count
    return d;
  }
  if (!in.state && ReasonNeedsReboot(d.slurm->reason)) {
    d.action = DrainAction::NoRecordForReboot;
    return d;
  }
  d.next.healthy_runs = (in.state ? in.state->healthy_runs : 0) + 1;  // the boot changed: its id is done with
  if (d.next.healthy_runs < policy.resume_after) {
    d.action = DrainAction::WaitHealthyRuns;
    d.state_change = StateChange::Write;
    return d;
  }
  d.action = DrainAction::Resume;
  d.state_change = StateChange::Remove;
  return d;
}

}  // namespace

const char* DrainActionKey(DrainAction action) {
  switch (action) {
    case DrainAction::None: return "none";
    case DrainAction::Drain: return "drained";
    case DrainAction::HeldByCap: return "held_by_cap";
    case DrainAction::LeftAsIs: return "left_as_is";
    case DrainAction::Resume: return "resumed";
    case DrainAction::WaitHealthyRuns: return "waiting_for_healthy_runs";
    case DrainAction::WaitReboot: return "waiting_for_reboot";
    case DrainAction::NoRecordForReboot: return "not_resumed_no_record";
    case DrainAction::NotWholeNode: return "not_resumed_job_gpus_only";
  }
  return "none";
}

DrainDecision DecideDrain(const DrainInputs& in, const DrainPolicy& policy) {
  DrainDecision d;
  if (in.nodes) d.slurm = FindNode(*in.nodes, in.node);
  return in.healthy ? Healthy(in, policy, d) : Unhealthy(in, policy, d);
}

}  // namespace labcheck::node_check
