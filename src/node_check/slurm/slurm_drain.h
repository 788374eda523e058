// Taking a node out of service as NHC does (LBNL Node Health Check, `nhc`'s "mark offline"):
// `scontrol update nodename=NODE state=drain reason="lab_check: …"`. Slurm then schedules nothing
// new there and `sinfo -R` shows the reason; an administrator returns it with state=resume.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "node_check/verdict/env_lookup.h"

namespace labcheck::node_check {

// The node's name in Slurm: SLURMD_NODENAME (slurmd sets it for prologs, epilogs and the health
// check program), else the short host name, as NHC takes it (`hostname -s`).
std::string SlurmNodeName(const EnvLookup& env);

// Slurm's reason field is one line; keep it short enough for `sinfo -R`'s readers (Slurm itself
// stores longer ones). "lab_check: " + the findings, newlines and quotes removed.
std::string DrainReason(const std::string& findings, size_t max_chars = 240);

std::vector<std::string> DrainArgv(const std::string& node, const std::string& reason);

// The command line as a person would type it, for the message that says what was run.
std::string CommandLine(const std::vector<std::string>& argv);

// Where scontrol is. slurmd starts HealthCheckProgram, prologs and epilogs with no search path
// (Slurm's prolog/epilog guide: "these programs do not have a search path set"), so PATH alone
// would find nothing there: `explicit_path` (--scontrol) when given, else PATH's folders, else the
// folders Slurm's packages (Debian, OpenHPC: /usr/bin) and its default source build (/usr/local/bin)
// and common site prefixes (/opt/slurm/bin) install it in. Empty when none holds an executable one.
// The folders tried after PATH, in order.
const std::vector<std::string>& ScontrolFolders();

std::string FindScontrol(const std::string& explicit_path, const EnvLookup& env,
                         const std::vector<std::string>& folders = ScontrolFolders());

struct DrainOutcome {
  bool slurm_present = false;  // an executable scontrol was found
  bool ok = false;
  std::string command;         // what was run
  std::string error;           // scontrol's own words, or why it could not run
  std::string out;             // its standard output
};

// Runs `scontrol` (a path from FindScontrol) with argv[1..]; empty: slurm_present false and nothing
// run. The timeouts are short: in a health check the drain must land before slurmd's 60 s kill.
DrainOutcome RunScontrol(const std::string& scontrol, std::vector<std::string> argv, double timeout_s);
DrainOutcome Drain(const std::string& scontrol, const std::string& node, const std::string& reason, double timeout_s = 10);

// `scontrol update nodename=NODE state=resume`: what an administrator runs, and what --drain runs
// for a node it drained itself once it is healthy again (NHC's node-mark-online).
std::vector<std::string> ResumeArgv(const std::string& node);
// `scontrol -o show nodes`: every node on one line each (slurm_nodes.h reads it).
std::vector<std::string> ShowNodesArgv();

}  // namespace labcheck::node_check
