// What node-check's findings mean to the people who act on them (data/finding_codes.json): per
// kind of finding a stable code ("LC204"), a severity, what clears it, a title and the action in
// words with the command where there is one. One table for node-check's verdict, the Slurm reason,
// the metrics and gpu.health's lines, so that they never disagree about what a finding asks for.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"

namespace labcheck::reference {

// From least to most severe. Only severities above Monitor take a node out of service. DCGM's
// own set (dcgm_errors.h: MONITOR, ISOLATE, TRIAGE, CONFIG, RESET) less TRIAGE, which a gate
// cannot act on, plus Reboot, which AWS's GPU health checks and NVIDIA's Xid catalog name apart.
enum class Severity { Monitor, Config, Reset, Reboot, Isolate };

// What clears a finding: a later run that no longer finds it, a GPU reset (or the driver loading
// again), or only a reboot.
enum class Clears { Run, Reset, Reboot };

struct FindingCode {
  std::string code;       // "LC204": stable, never reused
  std::string key;        // the finding's key in --json: "remapped_rows_pending"
  std::string xid_class;  // XID findings: data/xid_catalog.json's class ("reset", "reboot", ...)
  Severity severity = Severity::Isolate;
  Clears clears = Clears::Run;
  Text title;
  Text action;            // may hold {bus}, {pci}, {serial}, {uuid} and a finding's own {names}
  std::string dcgm;       // DCGM's failure code and its severity for the same condition, if any
};

// The whole table, in code order (the docs' table and its test read it).
const std::vector<FindingCode>& FindingCodes();

// The entry for a finding's key; the "unclassified" entry (strict: isolate) for a key the table
// lacks, so that a new finding without a row still fails the node and says so.
const FindingCode& FindingCodeFor(const std::string& key);
// The entry of an XID class ("reset", "reboot", "contact_support"); nullptr for "application".
const FindingCode* FindingCodeForXidClass(const std::string& xid_class);
// By its code ("LC204"); nullptr when no entry has it.
const FindingCode* FindingCodeByCode(const std::string& code);

const char* SeverityKey(Severity severity);  // "monitor", "config", "reset", "reboot", "isolate"
std::optional<Severity> SeverityFromKey(const std::string& key);
const char* ClearsKey(Clears clears);        // "run", "reset", "reboot"
Text SeverityName(Severity severity);        // "reset the GPU", "сбросить GPU"

// The action with its placeholders filled: {name} from `values`; a placeholder without a value
// is left for the reader ("{serial}" on a card that has none reads "serial unknown").
Text FillAction(const Text& action, const std::map<std::string, std::string>& values);

}  // namespace labcheck::reference
