#!/usr/bin/env bash
# Set everything up, then build one edge's knowledge base from the bundled MultiHop-RAG sample
# (the 43 business articles) with the embedded SLM, and show what it holds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
DATA=${DGRAG_DEMO_DIR:-.dgrag/demo-business}
.venv/bin/dgrag edge ingest --data-dir "$DATA" --edge-id business --bundle-edge business \
  simulation/bundles/multihop4/docs.jsonl
.venv/bin/dgrag edge stats --data-dir "$DATA"
.venv/bin/dgrag edge summaries --data-dir "$DATA" | head -n 24
