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
// True when the profile's "hang_in" lists `name`.
bool HangIn(const char* name);
// Never returns (a GPU that stopped answering), after saying on stderr which call it was. The
// thread sleeps interruptibly: SIGKILL ends it, unlike a real driver's uninterruptible wait, which
// the runner's own test seam (ChildSpec::try_reap) stands in for.
[[noreturn]] void HangNow(const char* name);

}  // namespace nvsim
