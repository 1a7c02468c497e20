#!/usr/bin/env bash
# Self-test the model runtime in a child process; when the native llama.cpp build crashes there, rebuild it with
# portable flags (only the CPU features this machine reports, never AMX) and test it again.
#
#   bash scripts/repair_runtime.sh              # what scripts/install.sh runs after installing
#   bash scripts/repair_runtime.sh --portable   # rebuild with portable flags at once, then self-test
#
# DGRAG_PYTHON: the interpreter of the install (default .venv/bin/python). Exit 0: the runtime works.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${DGRAG_PYTHON:-.venv/bin/python}
LLAMA_PIN=$(grep -iE '^llama[-_]cpp[-_]python==' constraints.txt)

rebuild_portable() {
  local cmake_args
  cmake_args=$("$PY" -m shared.models.runtime_check --fallback-cmake-args)
  echo "== rebuilding llama.cpp with portable flags: $cmake_args (about 3 minutes)"
  CMAKE_ARGS="$cmake_args" "$PY" -m pip install -q --force-reinstall --no-deps --no-cache-dir \
    --no-binary llama-cpp-python "$LLAMA_PIN"
}

self_test() {  # exit 0 ok, 3 a crash (the runtime_check parent says which step), 1 another failure
  local status=0
  "$PY" -m shared.models.runtime_check || status=$?
  if [ "$status" -gt 128 ]; then
    echo "== the self-test itself died of signal $((status - 128))" >&2
    status=3
  fi
  return "$status"
}

if [ "${1:-}" = --portable ]; then
  rebuild_portable
fi
status=0
self_test || status=$?
if [ "$status" -eq 3 ] && [ "${1:-}" != --portable ]; then
  echo "== the native llama.cpp build crashed on this CPU (the step is named above); falling back to a portable build"
  rebuild_portable
  status=0
  self_test || status=$?
fi
if [ "$status" -ne 0 ]; then
  echo "repair_runtime.sh: the model runtime does not work on this machine (see the self-test lines above);" \
       "nothing else will run. Report the CPU line and the llama.cpp system info above with the issue." >&2
  exit 1
fi
