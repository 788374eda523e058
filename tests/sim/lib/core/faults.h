// Faults a machine profile can inject that are not about one GPU: symbols an old driver lacks,
// a call that crashes. Per-GPU and per-library faults live with the data they change.
#pragma once

namespace nvsim {

// True when the profile's "missing_symbols" lists `name`.
bool SymbolMissing(const char* name);
// True when the profile's "crash_in" lists `name`.
bool CrashIn(const char* name);
// Raises SIGSEGV (as a driver bug would) after saying on stderr which call it was.
[[noreturn]] void CrashNow(const char* name);

}  // namespace nvsim
