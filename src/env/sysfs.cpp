#include "env/sysfs.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace labcheck::env {

Result<std::string> ReadFirstLine(const std::string& path) {
  auto contents = ReadFile(path);
  if (!contents.ok()) return contents.status();
  std::string text = std::move(contents).value();
  if (auto newline = text.find('\n'); newline != std::string::npos) text.resize(newline);
  return text;
}

std::vector<std::string> ListDirectory(const std::string& path) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(path.c_str()), closedir);
  if (!dir) return names;
  while (const dirent* entry = readdir(dir.get())) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Trim(std::string_view text) {
  const char* kSpace = " \t\r\n\f\v";
  size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(kSpace);
  return std::string(text.substr(begin, end - begin + 1));
}

}  // namespace labcheck::env
