#!/usr/bin/env bash
# The compose file `dgrag init --compose` writes, run for real: build the images, write a deployment of a cloud
# and two edges (mutual TLS, fresh tokens and certificates), ingest a few articles into each edge, bring them up,
# ask one edge a question only the other edge's articles answer, check that the answer cites that edge, print
# what it cost, and tear everything down.
#
#   bash scripts/compose_smoke.sh [--report FILE]
#
# Installs nothing. Needs a running Docker engine with BuildKit and Compose v2 (`docker compose`), python3 and
# dgrag on the host (PYTHON, default .venv/bin/python: it runs `dgrag init`; not needed with BUILD_ONLY).
# Not part of the test command (it builds images for minutes). Settings (environment):
#   DOCKER       the docker CLI (default docker)
#   BASE_IMAGE   the base of both images' stages (default dgrag-base:bookworm, made from Debian's packages by
#                scripts/debian_base_image.sh when missing and this runs as root; python:3.11-slim works too)
#   TORCH_WHEEL  a local torch CPU wheel, copied into docker/wheels/, where both builds take it from (for hosts
#                that cannot reach download.pytorch.org); unset: a wheel already there, else torch's index
#   ANSWER_TIMEOUT  seconds the asking edge waits for the cloud's answer (default 600). A loaded host answers
#                late, so the cloud also gives the edges 120 s for their knowledge and 30 s for a probe.
#   SYNC_TIMEOUT seconds the cloud has to hold both edges' summaries before the question (default 300)
#                A wait that runs out still fails the run; the failure then names the wait.
#   BUNDLE       the benchmark bundle the articles and the question come from (default simulation/bundles/multihop4)
#   ARTICLES     articles per edge besides the question's evidence (default 4)
#   KEEP_UP      a file: on success leave the deployment running and write `work=... project=...` there, for
#                scripts/fault_drill.sh (which tears it down)
#   BUILD_ONLY   non-empty: build dgrag-edge:smoke and dgrag-cloud:smoke and stop (scripts/ray_cluster.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

docker=${DOCKER:-docker}
base=${BASE_IMAGE:-dgrag-base:bookworm}
bundle=${BUNDLE:-simulation/bundles/multihop4}
articles=${ARTICLES:-4}
report=""
[ "${1:-}" = --report ] && report=${2:?--report needs a file}
tag=smoke
project=dgrag-smoke
python=${PYTHON:-.venv/bin/python}
answer_timeout=${ANSWER_TIMEOUT:-600}
sync_timeout=${SYNC_TIMEOUT:-300}
work=$(mktemp -d /tmp/dgrag-smoke.XXXXXX)

die() { echo "compose_smoke: $*" >&2; exit 1; }
say() { echo "== $*" | tee -a "$work/report.md"; }
compose() {
    "$docker" compose -p "$project" -f "$work/dep/compose.yaml" -f "$work/smoke.yaml" --env-file "$work/smoke.env" "$@"
}
kept=false
cleanup() {
    [ "$kept" = true ] && return
    if [ -f "$work/smoke.env" ]; then compose down -v --remove-orphans > /dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$docker" info > /dev/null 2>&1 || die "no Docker engine answers ($docker info failed)"
"$docker" compose version > /dev/null 2>&1 || die "Docker Compose v2 is missing ($docker compose version failed)"
command -v python3 > /dev/null || die "python3 is missing"
if [ -z "${BUILD_ONLY:-}" ]; then
    "$python" -c 'import dgrag' 2> /dev/null || die "$python cannot import dgrag: set PYTHON to one that can"
fi
if ! "$docker" image inspect "$base" > /dev/null 2>&1; then
    [ "$base" = dgrag-base:bookworm ] || die "base image $base is missing"
    DOCKER=$docker bash scripts/debian_base_image.sh "$base"
fi
say "$($docker version -f 'engine {{.Server.Version}}'), $($docker compose version --short | sed 's/^/compose /'),"\
" base $base, $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"

if [ -n "${TORCH_WHEEL:-}" ]; then   # the Dockerfiles install torch from docker/wheels/ when it holds a wheel
    [ -f "$TORCH_WHEEL" ] || die "TORCH_WHEEL $TORCH_WHEEL is not a file"
    [ -f "docker/wheels/$(basename "$TORCH_WHEEL")" ] || cp "$TORCH_WHEEL" docker/wheels/
fi
for role in edge cloud; do
    started=$(date +%s)
    DOCKER_BUILDKIT=1 "$docker" build -q --build-arg "PYTHON_IMAGE=$base" \
        -f "docker/$role.Dockerfile" -t "dgrag-$role:$tag" . > "$work/build-$role.log" 2>&1 \
        || { tail -30 "$work/build-$role.log" >&2; die "building the $role image failed"; }
    size=$("$docker" image inspect -f '{{.Size}}' "dgrag-$role:$tag")
    say "built dgrag-$role in $(( $(date +%s) - started )) s: $((size / 1000000)) MB"
done
[ -n "${BUILD_ONLY:-}" ] && { kept=true; rm -rf "$work"; exit 0; }

# The deployment: configs, fresh tokens and certificates, and its compose file, all from `dgrag init --compose`.
"$python" -m dgrag init "$work/dep" --edges 2 --cloud-host localhost --compose > "$work/init.log" \
    || { cat "$work/init.log" >&2; die "dgrag init failed"; }
mkdir -p "$work/docs"
cat > "$work/smoke.env" <<EOF
DGRAG_CLOUD_IMAGE=dgrag-cloud:$tag
DGRAG_EDGE_IMAGE=dgrag-edge:$tag
DGRAG_CLOUD_PUBLISH=127.0.0.1:0
EOF
# Waits for a loaded host: the cloud's fan-out and probe deadlines, and how long the asking edge waits.
cat > "$work/smoke.yaml" <<EOF
services:
  cloud:
    environment:
      DGRAG__QUERY__DEADLINE_S: "120"
      DGRAG__QUERY__MAX_DEADLINE_S: "120"
      DGRAG__QUERY__PROBE_DEADLINE_S: "30"
  edge-1:
    environment:
      DGRAG__CLOUD__QUERY_DEADLINE_S: "$answer_timeout"
EOF
say "wrote the deployment with dgrag init --compose: mutual TLS, services run as uid $(id -u)"

# The articles: edge-1 holds business articles, edge-2 technology ones with the evidence of a question about
# technology whose answer no business article holds; edge-1 is asked it.
python3 - "$bundle" "$articles" "$work/docs" <<'EOF'
import json, sys
from pathlib import Path
bundle, n, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
docs = [json.loads(x) for x in (bundle / "docs.jsonl").read_text(encoding="utf-8").splitlines() if x]
rows = [json.loads(x) for x in (bundle / "questions.jsonl").read_text(encoding="utf-8").splitlines() if x]
business = " ".join(d["text"] for d in docs if d["edge_id"] == "business").lower()
row = next(r for r in rows if r["home_edges"] == ["technology"] and r["answer"].lower() not in business
           and r["answer"].lower() not in ("yes", "no"))
evidence = set(row["evidence_doc_ids"])
chosen = {
    "edge-1": [d for d in docs if d["edge_id"] == "business"][:n],
    "edge-2": [d for d in docs if d["doc_id"] in evidence]
    + [d for d in docs if d["edge_id"] == "technology" and d["doc_id"] not in evidence][:n],
}
for edge, kept in chosen.items():
    (out / f"{edge}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in kept), encoding="utf-8")
(out / "question.json").write_text(json.dumps(row), encoding="utf-8")
EOF
chmod -R a+rX "$work/docs"
question=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["question"])' "$work/docs/question.json")
gold=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["answer"])' "$work/docs/question.json")

for edge in edge-1 edge-2; do   # before `up`: an edge's data directory is used by one process at a time
    started=$(date +%s)
    count=$(wc -l < "$work/docs/$edge.jsonl")
    compose run --rm --no-deps -v "$work/docs:/in:ro" "$edge" edge ingest "/in/$edge.jsonl" \
        > "$work/ingest-$edge.log" 2>&1 || { tail -20 "$work/ingest-$edge.log" >&2; die "ingest into $edge failed"; }
    say "ingested $count articles into $edge in $(( $(date +%s) - started )) s: $(grep '^documents' "$work/ingest-$edge.log")"
done

started=$(date +%s)
compose up -d --no-build --wait cloud edge-1 edge-2 > "$work/up.log" 2>&1 \
    || { tail -20 "$work/up.log" >&2; compose logs --tail 30 >&2; die "the services did not become healthy"; }
say "cloud, edge-1 and edge-2 healthy $(( $(date +%s) - started )) s after up"

# The question is routed by the edges' summaries: wait until the cloud holds both edges' summaries, not a fixed
# time, which a loaded host outlasts.
started=$(date +%s)
ops=(--address "$(compose port cloud 50051)" --user ops --token-file "$work/dep/ops/token"
     --tls-ca "$work/dep/ops/ca.pem" --tls-cert "$work/dep/ops/client.pem" --tls-key "$work/dep/ops/client.key")
held() {
    "$python" -m dgrag cloud edges "${ops[@]}" --json > "$work/edges.json" 2> "$work/edges.log" || return 1
    python3 -c 'import json, sys
rows = [json.loads(x) for x in open(sys.argv[1]) if x.strip()]
held = {r["edge_id"] for r in rows if r["connected"] and r["summaries"] > 0}
sys.exit(0 if {"edge-1", "edge-2"} <= held else 1)' "$work/edges.json"
}
until held; do
    if [ $(( $(date +%s) - started )) -ge "$sync_timeout" ]; then
        cat "$work/edges.json" "$work/edges.log" >&2
        die "the cloud did not hold both edges' summaries within SYNC_TIMEOUT=$sync_timeout s"
    fi
    sleep 2
done
say "the cloud held both edges' summaries $(( $(date +%s) - started )) s later"

say "asked at edge-1 (its wait for the cloud's answer: ANSWER_TIMEOUT=$answer_timeout s): $question (gold: $gold)"
started=$(date +%s)
compose exec -T edge-1 dgrag edge ask --server 127.0.0.1:50061 --token-file /var/lib/dgrag/api.token --json \
    --timeout "$answer_timeout" "$question" > "$work/answer.json" || die "the question failed"
seconds=$(( $(date +%s) - started ))
status=0
python3 - "$work/answer.json" "$seconds" <<'EOF' | tee -a "$work/report.md" || status=$?
import json, sys
trace, seconds = json.load(open(sys.argv[1])), sys.argv[2]
cloud = trace.get("cloud") or {}
cited = list(dict.fromkeys(s.get("edge_id") or "edge-1" for s in trace["sources"]))
print(f"decision: {trace['decision']}; cited {cited}; {seconds} s")
print(f"short answer: {cloud.get('short') or '(none)'}")
print(f"answer: {trace['answer']}")
print("sources: " + ", ".join(f"{s.get('edge_id') or 'edge-1'}:{s['doc_id']}" for s in trace["sources"]))
if trace["decision"] != "cloud" or "edge-2" not in cited:
    sys.exit("compose_smoke: the answer does not cite edge-2, the edge that holds its evidence")
EOF
if [ "$status" -ne 0 ]; then   # say whether a wait ran out: the processes log late edges and deadlines
    compose logs --no-color --tail 60 cloud edge-1 edge-2 2>&1 | grep -iE 'deadline|late|timed? ?out|unreachable' >&2 \
        || echo "compose_smoke: no wait ran out in the logs: a wrong route, not a slow host" >&2
    exit "$status"
fi
say "memory (RSS) per container after the answer:"
"$docker" stats --no-stream --format '{{.Name}} {{.MemUsage}}' \
    $(compose ps -q) | sed 's/^/   /' | tee -a "$work/report.md"
[ -n "$report" ] && mkdir -p "$(dirname "$report")" && cp "$work/report.md" "$report"
if [ -n "${KEEP_UP:-}" ]; then
    printf 'work=%s\nproject=%s\n' "$work" "$project" > "$KEEP_UP"
    kept=true
    echo "compose_smoke: passed; left running (project $project, $work)"
    exit 0
fi
compose down -v --remove-orphans > /dev/null 2>&1
say "torn down (containers and networks; the deployment's directory is removed with the work directory)"
echo "compose_smoke: passed"
