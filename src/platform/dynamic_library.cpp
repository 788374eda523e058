#include "platform/dynamic_library.h"

#include <dlfcn.h>
#include <link.h>

namespace labcheck {

void DlCloser::operator()(void* handle) const {
  if (handle != nullptr) dlclose(handle);
}

Result<DynamicLibrary> DynamicLibrary::Open(const std::string& name_or_path) {
  dlerror();  // clear a stale message so the one we report belongs to this call
  void* raw = dlopen(name_or_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (raw == nullptr) {
    const char* why = dlerror();
    return Status::Error(why != nullptr ? why : ("cannot open " + name_or_path));
  }
  DynamicLibrary library;
  library.handle_.reset(raw);
  library.file_ = name_or_path;
  link_map* map = nullptr;
  if (dlinfo(raw, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    library.file_ = map->l_name;
  }
  return library;
}

void* DynamicLibrary::Symbol(const char* name) const {
  if (!handle_) return nullptr;
  return dlsym(handle_.get(), name);
}

Status BindSymbols(const DynamicLibrary& library, const std::vector<SymbolBinding>& table) {
  for (const SymbolBinding& row : table) {
    *row.slot = nullptr;
    for (const char* name : row.names) {
      if (void* address = library.Symbol(name)) {
        *row.slot = address;
        break;
      }
    }
    if (*row.slot == nullptr && row.required) {
      return Status::Error(std::string("symbol ") + row.names.front() + " not found in " + library.file());
    }
  }
  return Status::Ok();
}

}  // namespace labcheck
