// The site-packages folders of the Python the run uses (RunOptions::python), where pip puts
// nvidia-cublas and nvidia-nccl: asked of the interpreter itself (`site` and `sys.path`, so
// virtualenvs, conda and --user installs all count), once per interpreter per run.
#pragma once
#include <string>
#include <vector>

#include "runner/cancel.h"

namespace labcheck {

// Empty when `python` is empty or does not answer within a few seconds: the libraries are then
// looked for everywhere else.
std::vector<std::string> PythonSitePackages(const std::string& python, const CancelToken& cancel);

// The folders from the interpreter's answer (a JSON list of paths), keeping those that end in
// site-packages or dist-packages, in order, without duplicates.
std::vector<std::string> SitePackagesFromAnswer(const std::string& json_text);

}  // namespace labcheck
