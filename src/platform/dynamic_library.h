// A shared library opened with dlopen that closes itself, and a table that binds its symbols.
// Reusable by any module that loads an optional library at run time (after llama.cpp's backend
// registry: the handle is a unique_ptr with a deleter; nothing throws across the boundary).
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace labcheck {

struct DlCloser {
  void operator()(void* handle) const;
};
using LibraryHandle = std::unique_ptr<void, DlCloser>;

class DynamicLibrary {
 public:
  // `name_or_path` is passed to dlopen as is: a bare soname asks the loader (LD_LIBRARY_PATH, its
  // cache, the system folders); a path with '/' opens that file. RTLD_NOW finds missing
  // dependencies here rather than at the first call; RTLD_LOCAL keeps two cuBLAS from mixing.
  static Result<DynamicLibrary> Open(const std::string& name_or_path);

  void* Symbol(const char* name) const;
  // The file the loader actually mapped (dlinfo), e.g. the soname resolved through the cache.
  const std::string& file() const { return file_; }
  bool loaded() const { return handle_ != nullptr; }

 private:
  LibraryHandle handle_;
  std::string file_;
};

// One row of a symbol table: the names to try, newest first (cuMemAlloc_v2 before cuMemAlloc),
// and the function pointer to fill. Optional rows stay null and are checked where they are used.
struct SymbolBinding {
  std::vector<const char*> names;
  void** slot = nullptr;
  bool required = true;
};

template <typename Fn>
SymbolBinding Required(Fn*& slot, std::initializer_list<const char*> names) {
  return SymbolBinding{names, reinterpret_cast<void**>(&slot), true};
}
template <typename Fn>
SymbolBinding Optional(Fn*& slot, std::initializer_list<const char*> names) {
  return SymbolBinding{names, reinterpret_cast<void**>(&slot), false};
}

// Fills every slot it can; the error names the first required symbol that is missing and the file.
Status BindSymbols(const DynamicLibrary& library, const std::vector<SymbolBinding>& table);

}  // namespace labcheck
