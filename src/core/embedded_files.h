// The table cmake/embed_files.cmake generates for a target: each embedded file's path (relative to
// its BASE) and its bytes. Each module declares `EmbeddedFileTable EmbeddedFiles();` in the
// namespace it gave embed_files(). A span, not an array of N: a declared N that disagreed with the
// files listed linked silently (the return type is not in the symbol) and hid the last files,
// which is how data/compat.json went missing when a fourth reference file was added.
#pragma once
#include <span>
#include <string_view>
#include <utility>

namespace labcheck {

using EmbeddedFileTable = std::span<const std::pair<std::string_view, std::string_view>>;

}  // namespace labcheck
