#include "core/faults.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "core/profile.h"

namespace nvsim {

namespace {

bool Listed(const char* key, const char* name) {
  const json* list = Profile().At(key);
  if (list == nullptr || !list->is_array()) return false;
  for (const json& entry : *list)
    if (entry.is_string() && entry.get<std::string>() == name) return true;
  return false;
}

}  // namespace

bool SymbolMissing(const char* name) { return Listed("missing_symbols", name); }

bool CrashIn(const char* name) { return Listed("crash_in", name); }

bool HangIn(const char* name) { return Listed("hang_in", name); }

void HangNow(const char* name) {
  std::fprintf(stderr, "nvsim: %s never returns, as the profile asks (hang_in)\n", name);
  std::fflush(stderr);
  for (;;) pause();
}

void CrashNow(const char* name) {
  std::fprintf(stderr, "nvsim: simulated crash (SIGSEGV) inside %s, as the profile asks\n", name);
  std::fflush(stderr);
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  std::abort();
}

}  // namespace nvsim
