// The ranks of a cluster run that died, hung, waited, never reported, failed to start NCCL or
// computed a wrong sum, each with what it says and whether it is a cause (a culprit) or only waited
// on one: a collective ends only when every rank entered it, so the ranks that got least far keep
// the blame. Part of the merge (cluster_merge.cpp), on the same rank blocks.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/table.h"
#include "core/text.h"

namespace labcheck::cluster {

struct Problem {
  int rank = 0;
  std::string kind;  // died, hung, waiting, missing, wrong_sum, init_error, failed, stalled
  Text what;
  bool culprit = true;
};

// Problems, per rank; `node_of[rank]` is the node index each rank ran on.
std::vector<Problem> RankProblems(const std::vector<nlohmann::json>& blocks, const std::vector<int>& node_of,
                                  const std::string& gather_error);
// The ranks with a problem of `kind`, each once, in order.
std::vector<int> RanksWith(const std::vector<Problem>& problems, const char* kind);
// The table «Ранги с проблемами».
Table ProblemTable(const std::vector<Problem>& problems, const std::vector<int>& node_of);
// The culprits, one line each; when there is none but no size finished on every rank, that.
std::vector<Text> Failures(const std::vector<Problem>& problems, const std::vector<int>& node_of, bool incomplete);

}  // namespace labcheck::cluster
