#!/usr/bin/env bash
# Usage: scripts/glibc-floor.sh BINARY [FLOOR]
# Reads the glibc symbol versions BINARY needs (readelf --dyn-syms, which reads an ELF file of any
# architecture, so the arm64 build too) and fails naming each symbol whose version is above FLOOR
# (default 2.34: RHEL/Rocky 9; docs/install.md, "Platforms"). Exit 0: within the floor; 1: above it;
# 2: BINARY unreadable. tests/packaging/glibc_floor_test.cpp and scripts/check-platforms.sh run it.
set -uo pipefail
binary=${1:?usage: glibc-floor.sh BINARY [FLOOR]}
floor=${2:-2.34}
symbols=$(readelf --dyn-syms --wide "$binary" 2>&1) || {
  echo "glibc-floor: cannot read $binary: $symbols" >&2; exit 2; }

above=() newest=0
# Undefined symbols read "name@GLIBC_2.36 (5)"; defined ones would read "name@@GLIBC_...".
while IFS=@ read -r symbol version; do
  version=${version#@}; version=${version#GLIBC_}
  newest=$(printf '%s\n%s\n' "$newest" "$version" | sort -V | tail -n 1)
  if [[ $(printf '%s\n%s\n' "$floor" "$version" | sort -V | tail -n 1) != "$floor" ]]; then
    above+=("$symbol@GLIBC_$version")
  fi
done < <(grep -oE '[^ ]+@@?GLIBC_[0-9.]+' <<<"$symbols" | sort -u)

if [[ ${#above[@]} -gt 0 ]]; then
  echo "glibc-floor: $binary needs glibc above $floor for:"
  printf '  %s\n' "${above[@]}"
  echo "It would not start on glibc $floor (RHEL/Rocky 9). Find what brings the symbol in" \
       "(-Wl,--trace-symbol=NAME) and keep it out, or send it to src/platform/glibc_floor (CMakeLists.txt's --wrap)."
  exit 1
fi
echo "glibc-floor: $binary needs glibc $newest at most (floor $floor)"
