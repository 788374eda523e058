// The reference data files (data/gpus.json, data/hints.json) as compiled into the binary, so the
// tool never reads the source tree at run time.
#pragma once
#include <string_view>

namespace labcheck::reference {

// Contents of a data file by its path relative to data/ ("gpus.json"); empty if not embedded.
std::string_view ReferenceFile(std::string_view path);

}  // namespace labcheck::reference
