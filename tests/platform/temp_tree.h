// A temporary folder tree that removes itself, for tests that plant files (library layouts, fake
// /sys trees). Include as "../platform/temp_tree.h" from another test folder.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

#include <stdlib.h>

namespace labcheck::testing {

class TempTree {
 public:
  TempTree() {
    std::string pattern = (std::filesystem::temp_directory_path() / "lab_test_XXXXXX").string();
    root_ = mkdtemp(pattern.data());
  }
  ~TempTree() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path Write(const std::string& relative, const std::string& content = "x") const {
    std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::filesystem::path Link(const std::string& relative, const std::filesystem::path& target) const {
    std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::filesystem::create_symlink(target, path);
    return path;
  }

 private:
  std::filesystem::path root_;
};

}  // namespace labcheck::testing
