#include "node_check/slurm/slurm_drain.h"

#include <unistd.h>

#include <sstream>

#include "node_check/slurm/slurm_nodes.h"
#include "runner/child_process.h"

namespace labcheck::node_check {

namespace {

bool Executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

}  // namespace

const std::vector<std::string>& ScontrolFolders() {
  static const std::vector<std::string> folders = {"/usr/bin", "/usr/local/bin", "/opt/slurm/bin", "/usr/sbin", "/usr/local/sbin"};
  return folders;
}

std::string FindScontrol(const std::string& explicit_path, const EnvLookup& env, const std::vector<std::string>& folders) {
  if (!explicit_path.empty()) return Executable(explicit_path) ? explicit_path : "";
  std::stringstream dirs(env("PATH").value_or(""));
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && Executable(dir + "/scontrol")) return dir + "/scontrol";
  for (const std::string& folder : folders)
    if (Executable(folder + "/scontrol")) return folder + "/scontrol";
  return "";
}

std::string SlurmNodeName(const EnvLookup& env) {
  if (std::optional<std::string> name = env("SLURMD_NODENAME"); name && !name->empty()) return *name;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string name = host;
  return name.substr(0, name.find('.'));
}

std::string DrainReason(const std::string& findings, size_t max_chars) {
  std::string reason = std::string(kReasonPrefix) + " " + findings;
  for (char& c : reason)
    if (c == '\n' || c == '\r' || c == '"' || c == '\'') c = ' ';
  if (reason.size() > max_chars) {
    size_t cut = max_chars - 3;
    while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 letter
    reason = reason.substr(0, cut) + "...";
  }
  return reason;
}

std::vector<std::string> DrainArgv(const std::string& node, const std::string& reason) {
  return {"scontrol", "update", "nodename=" + node, "state=drain", "reason=" + reason};
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    const size_t eq = a.find('=');
    const bool plain = a.find_first_of(" \t;&|$`\\\"'()<>*?") == std::string::npos;
    std::string shown = plain ? a : eq != std::string::npos ? a.substr(0, eq + 1) + "\"" + a.substr(eq + 1) + "\"" : "\"" + a + "\"";
    line += (line.empty() ? "" : " ") + shown;
  }
  return line;
}

std::vector<std::string> ResumeArgv(const std::string& node) { return {"scontrol", "update", "nodename=" + node, "state=resume"}; }

std::vector<std::string> ShowNodesArgv() { return {"scontrol", "-o", "show", "nodes"}; }

DrainOutcome Drain(const std::string& scontrol, const std::string& node, const std::string& reason, double timeout_s) {
  return RunScontrol(scontrol, DrainArgv(node, reason), timeout_s);
}

DrainOutcome RunScontrol(const std::string& scontrol, std::vector<std::string> argv, double timeout_s) {
  DrainOutcome out;
  out.slurm_present = !scontrol.empty();
  if (out.slurm_present) argv[0] = scontrol;  // the path that runs, shown as run
  out.command = CommandLine(argv);
  if (!out.slurm_present) {
    out.error = "no scontrol on PATH or in the usual folders: no Slurm here";
    return out;
  }
  ChildSpec spec;
  spec.argv = argv;
  spec.timeout_s = timeout_s;
  ChildOutcome ran = RunChild(spec, CancelToken::Never());
  out.ok = ran.exited_ok();
  out.out = ran.out;
  if (!out.ok) out.error = ran.Describe() + (ran.Tail().empty() ? "" : ": " + ran.Tail());
  return out;
}

}  // namespace labcheck::node_check
