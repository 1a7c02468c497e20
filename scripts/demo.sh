#!/usr/bin/env bash
# Set everything up, then run the demo on the embedded defaults: two edges (the business and technology
# articles of the bundled MultiHop-RAG sample) and a cloud on this machine; one question answered at the
# edge, one escalated and routed by the cloud to the edge that knows.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/python scripts/demo_network.py "$@"
