#!/usr/bin/env bash
# Faults while the compose deployment answers: the deployment of scripts/compose_smoke.sh (`dgrag init --compose`,
# a cloud and two edges over mutual TLS; edge-2 holds the evidence of the question edge-1 is asked), then
#
#   1. edge-2's network cut for CUT_SECONDS (docker network disconnect) while edge-1 asks the question: how long
#      the answer took, what it said, how long edge-2 took to be connected again after the cut ended, and what
#      its audit log shows it sent after reconnecting (summary messages and bytes: nothing changed meanwhile);
#   2. the cloud container restarted: how long until both edges are connected again with all their summaries,
#      whether the trust file survived and the tokens stayed the same (none re-issued);
#   3. an edge's ingest into a data directory on a tiny tmpfs (disk full): the error it gives, and that the
#      documents ingested before are still there.
#
#   bash scripts/fault_drill.sh [--report FILE]
#
# Installs nothing; needs what compose_smoke.sh needs (it runs it first, with its settings). Not part of the
# test command. CUT_SECONDS (default 60) and TMPFS_SIZE (default 600k) are settings.
set -euo pipefail
cd "$(dirname "$0")/.."

docker=${DOCKER:-docker}
python=${PYTHON:-.venv/bin/python}
[[ $python = /* ]] || python=$PWD/$python   # absolute, but not resolved: a venv's python is a symlink
cut_seconds=${CUT_SECONDS:-60}
tmpfs_size=${TMPFS_SIZE:-600k}
report=""
[ "${1:-}" = --report ] && report=${2:?--report needs a file}
state=$(mktemp /tmp/dgrag-drill.XXXXXX)
work=""

die() { echo "fault_drill: $*" >&2; exit 1; }
say() { echo "== $*" | tee -a "$work/drill.md"; }
compose() { "$docker" compose -p "$project" -f "$work/dep/compose.yaml" --env-file "$work/smoke.env" "$@"; }
cleanup() {
    if [ -n "$work" ]; then compose down -v --remove-orphans > /dev/null 2>&1 || true; rm -rf "$work"; fi
    rm -f "$state"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

KEEP_UP=$state bash scripts/compose_smoke.sh || die "the deployment did not come up (compose_smoke.sh failed)"
# shellcheck disable=SC1090
. "$state"
: > "$work/drill.md"
cat > "$work/connected.py" <<'EOF'
import json, sys
rows = [json.loads(x) for x in sys.stdin if x.strip()]
print(" ".join(f"{r['edge_id']}:{r['summaries']}" for r in rows if r["connected"]))
EOF
cat > "$work/shown.py" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
c = t.get("cloud") or {}
cited = list(dict.fromkeys(s.get("edge_id") or "the asker" for s in t.get("sources") or []))
print(f"decision {t['decision']}; cited {cited}; note: {t.get('note') or '-'}")
EOF
question=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["question"])' "$work/docs/question.json")
edges() {  # the cloud's published port changes when its container restarts: look it up each time
    local port
    port=$(compose port cloud 50051 2> /dev/null | sed 's/.*://')
    [ -n "$port" ] || return 1
    (cd "$work/dep/ops" && "$python" -m dgrag cloud edges --address "127.0.0.1:$port" --user ops --token-file token \
        --tls-ca ca.pem --tls-cert client.pem --tls-key client.key --json)
}
# "edge-1:summaries edge-2:summaries" of the connected edges
connected() { edges 2> "$work/edges.err" | python3 "$work/connected.py" || true; }
ask() {
    compose exec -T edge-1 dgrag edge ask --server 127.0.0.1:50061 --token-file /var/lib/dgrag/api.token --json \
        "$question"
}
shown() { python3 "$work/shown.py" "$1"; }
audit_lines() { wc -l < "$work/dep/edge-2/data/audit.jsonl"; }

# 1. edge-2 cut off
whole=$(connected)
[ -n "$whole" ] || { cat "$work/edges.err" >&2; die "the operator's listing of the edges (dgrag cloud edges) failed"; }
say "before the faults: connected $whole"
net="${project}_edge-2-net"
container=$(compose ps -q edge-2)
lines_before=$(audit_lines)
"$docker" network disconnect "$net" "$container"
cut_at=$(now)
say "cut edge-2 off its network ($net) for ${cut_seconds} s"
asked_at=$(now)
ask > "$work/cut-answer.json" || die "edge-1's question failed outright while edge-2 was cut off"
say "edge-1 asked during the cut: answered in $(since "$asked_at") s: $(shown "$work/cut-answer.json")"
sleep "$(python3 -c "import sys; print(max(0.0, float(sys.argv[1]) - float(sys.argv[2])))" "$cut_seconds" "$(since "$cut_at")")"
"$docker" network connect "$net" "$container"
back_at=$(now)
until [ "$(connected)" = "$whole" ]; do
    [ "$(since "$back_at" | cut -d. -f1)" -lt 300 ] || die "edge-2 not connected with all its summaries 300 s after the cut"
    sleep 1
done
say "edge-2 connected with all its summaries again $(since "$back_at") s after its network came back"
python3 - "$work/dep/edge-2/data/audit.jsonl" "$lines_before" <<'EOF' | tee -a "$work/drill.md"
import collections, json, sys
rows = [json.loads(x) for x in open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):] if x.strip()]
kinds = collections.Counter(r["what"] for r in rows)
sent = sum(r.get("bytes", 0) for r in rows if r["what"] in ("summary_sync", "summary_delta"))
print(f"   edge-2's audit log after the cut: {dict(kinds) or 'nothing'}; summary bytes re-sent: {sent}")
EOF

# 2. the cloud restarted
tokens_before=$(sha256sum "$work/dep/cloud/tokens" "$work/dep"/edge-*/cloud.token | sha256sum)
restart_at=$(now)
compose restart cloud > /dev/null 2>&1
until [ "$(connected)" = "$whole" ]; do
    [ "$(since "$restart_at" | cut -d. -f1)" -lt 300 ] \
        || die "the edges were not back 300 s after the cloud restarted (last listing error: $(tail -3 "$work/edges.err"))"
    sleep 1
done
say "cloud restarted: both edges connected with all their summaries $(since "$restart_at") s after the restart began"
[ -s "$work/dep/cloud/state/trust.json" ] && say "trust file kept: $(wc -c < "$work/dep/cloud/state/trust.json") bytes" \
    || say "trust file missing after the restart"
tokens_after=$(sha256sum "$work/dep/cloud/tokens" "$work/dep"/edge-*/cloud.token | sha256sum)
[ "$tokens_before" = "$tokens_after" ] && say "no token re-issued" || say "tokens CHANGED across the restart"
ask > "$work/after-restart.json" || die "the question failed after the cloud restarted"
say "asked again after the restart: $(shown "$work/after-restart.json")"

# 3. disk full during ingest
image=$(compose config --images | grep edge | head -1)
set +e
"$docker" run --rm --user "$(id -u):$(id -g)" --network none --entrypoint sh \
    --tmpfs "/var/lib/dgrag:size=$tmpfs_size,mode=0700,uid=$(id -u),gid=$(id -g)" \
    -v "$work/dep/edge-1:/etc/dgrag:ro" -v "$work/docs:/in:ro" -w /etc/dgrag -e HOME=/tmp -e DGRAG_MODEL_LOCK=off \
    "$image" -c '
        head -1 /in/edge-1.jsonl > /tmp/one.jsonl
        dgrag edge ingest --data-dir /var/lib/dgrag --config edge.toml /tmp/one.jsonl > /tmp/first.log 2>&1 \
            || { echo "first ingest failed:"; tail -5 /tmp/first.log; exit 3; }
        dgrag edge ingest --data-dir /var/lib/dgrag --config edge.toml /in/edge-2.jsonl > /tmp/full.log 2>&1
        echo "second ingest exit $?: $(grep -i -m1 -E "no space|disk is full|ENOSPC" /tmp/full.log || tail -1 /tmp/full.log)"
        dgrag edge stats --data-dir /var/lib/dgrag --config edge.toml 2>&1 | grep -i -m1 "documents"
    ' > "$work/diskfull.log" 2>&1
status=$?
set -e
say "disk full ($tmpfs_size tmpfs) during ingest (exit $status):"
sed 's/^/   /' "$work/diskfull.log" | tee -a "$work/drill.md"
[ -n "$report" ] && mkdir -p "$(dirname "$report")" && cp "$work/drill.md" "$report"
echo "fault_drill: done"
