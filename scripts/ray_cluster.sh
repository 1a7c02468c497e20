#!/usr/bin/env bash
# A Ray cluster of containers running a simulation, compared with the local backend, then a worker killed while
# it answers (docs/simulation.md, "A Ray cluster of containers"):
#
#   1. split multihop4 into EDGES edges (by source) and run LIMIT questions on this machine's local backend,
#      which also builds the index cache;
#   2. build dgrag-ray (the edge image plus Ray) and bring up docker/ray-cluster.yaml: a head (which runs the driver
#      and the cloud and offers Ray no CPUs) and two workers, each its own network namespace and memory limit;
#   3. run the same split, questions and seed from the head with `--backend ray --ray-address ray-head:6379`:
#      where each host actor ran, and every ask compared with the local run (simulation.compare_runs);
#   4. the same run again, with ray-worker-2 killed (docker kill) once KILL_AFTER answers are written: how the
#      run ends, which edges failed to reply afterwards; if the run stopped, the worker restarted and the same
#      command run again (it resumes: the answers written before are kept); every ask compared with the local run.
#
#   bash scripts/ray_cluster.sh [--report FILE]
#
# Installs nothing; builds dgrag-edge:smoke with scripts/compose_smoke.sh (BUILD_ONLY) when it is missing or
# REBUILD is set. Not part of the test command. Settings: EDGES (16), LIMIT (12), SEED (7), EDGES_PER_HOST (4),
# KILL_AFTER (answers, 8), SKIP_KILL (non-empty: stop after step 3), RESTART_CLOUD (non-empty: step 3 restarts the
# cloud once every edge has synced and times the summary index becoming whole again), KEEP (non-empty: keep the shared
# directory, with the runs' rows), DOCKER, PYTHON, and compose_smoke.sh's BASE_IMAGE and TORCH_WHEEL.
set -euo pipefail
cd "$(dirname "$0")/.."

docker=${DOCKER:-docker}
python=${PYTHON:-.venv/bin/python}
[[ $python = /* ]] || python=$PWD/$python   # absolute, but not resolved: a venv's python is a symlink
edges=${EDGES:-16}
limit=${LIMIT:-12}
seed=${SEED:-7}
per_host=${EDGES_PER_HOST:-4}
kill_after=${KILL_AFTER:-8}
report=""
[ "${1:-}" = --report ] && report=${2:?--report needs a file}
project=dgrag-ray
shared=$(mktemp -d /tmp/dgrag-ray.XXXXXX)
chmod 755 "$shared"

die() { echo "ray_cluster: $*" >&2; exit 1; }
say() { echo "== $*" | tee -a "$shared/report.md"; }
compose() { "$docker" compose -p "$project" -f docker/ray-cluster.yaml "$@"; }
cleanup() {
    compose down -v --remove-orphans > /dev/null 2>&1 || true
    [ -n "$report" ] && [ -f "$shared/report.md" ] && cp "$shared/report.md" "$report"
    [ -n "${KEEP:-}" ] || rm -rf "$shared"
}
trap cleanup EXIT
now() { date +%s; }
export DGRAG_SHARED=$shared DGRAG_RAY_IMAGE=dgrag-ray:smoke DGRAG_UID=$(id -u) DGRAG_GID=$(id -g)
RAY_AUTH_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
export RAY_AUTH_TOKEN

"$docker" info > /dev/null 2>&1 || die "no Docker engine answers ($docker info failed)"
say "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores; commit $(git rev-parse --short HEAD)"

# 1. the split and the local run (it builds the index cache the cluster then reads)
"$python" -m dgrag sim split --bench simulation/bundles/multihop4 --edges "$edges" --by source \
    --out "$shared/bundle" > "$shared/split.log" 2>&1 || { cat "$shared/split.log" >&2; die "the split failed"; }
run_args=(--bench "$shared/bundle" --cache-dir "$shared/cache" --modes dgrag --limit "$limit" --seed "$seed"
    --edges-per-host "$per_host")
started=$(now)
"$python" -m dgrag sim run "${run_args[@]}" --out "$shared/local" > "$shared/local.log" 2>&1 \
    || { tail -30 "$shared/local.log" >&2; die "the local run failed"; }
say "local backend: $edges edges in $(( (edges + per_host - 1) / per_host )) hosts, $limit questions, seed $seed:" \
    "$(( $(now) - started )) s (indexes built into the cache)"

# 2. the images and the cluster
if [ -n "${REBUILD:-}" ] || ! "$docker" image inspect dgrag-edge:smoke > /dev/null 2>&1; then
    BUILD_ONLY=1 DOCKER=$docker bash scripts/compose_smoke.sh || die "building dgrag-edge:smoke failed"
fi
DOCKER_BUILDKIT=1 "$docker" build -q --build-arg EDGE_IMAGE=dgrag-edge:smoke -f docker/ray.Dockerfile \
    -t dgrag-ray:smoke . > "$shared/build.log" 2>&1 || { cat "$shared/build.log" >&2; die "building dgrag-ray failed"; }
started=$(now)
compose up -d > "$shared/up.log" 2>&1 || { cat "$shared/up.log" >&2; die "the cluster did not start"; }
nodes=0
for _ in $(seq 60); do
    nodes=$(compose exec -T ray-head python -c 'import ray; ray.init(address="auto", logging_level="ERROR");
print(sum(1 for n in ray.nodes() if n["Alive"]))' 2> /dev/null | tail -1) || nodes=0
    [ "$nodes" = 3 ] && break
    sleep 2
done
[ "$nodes" = 3 ] || die "the cluster has $nodes live nodes of 3 after 120 s (compose logs: $(compose logs --tail 20))"
say "cluster up in $(( $(now) - started )) s: ray-head (driver and cloud, no CPUs for Ray, mem_limit 4g)," \
    "ray-worker-1 and ray-worker-2 (2 CPUs and mem_limit 4g each), token authentication on"

# 3. the same run on the cluster
cluster_run() {  # $1: the run directory; further arguments go to dgrag sim run
    local out=$1; shift
    compose exec -T ray-head dgrag sim run "${run_args[@]}" --out "$out" --backend ray \
        --ray-address ray-head:6379 "$@"
}
started=$(now)
restart=()
[ -n "${RESTART_CLOUD:-}" ] && restart=(--restart-cloud)
cluster_run "$shared/ray" "${restart[@]}" > "$shared/ray.log" 2>&1 \
    || { tail -40 "$shared/ray.log" >&2; die "the cluster run failed"; }
say "Ray cluster: $(( $(now) - started )) s; where each host ran:"
python3 - "$shared/ray/report.json" <<'EOF' | tee -a "$shared/report.md"
import json, sys
r = json.load(open(sys.argv[1]))
b = r["backend"]
print(f"   backend {b.get('backend')}, Ray {b.get('ray_version', '?')}, {b.get('nodes')} nodes")
for name, h in sorted(r["hosts"].items()):
    print(f"   {name}: node {h['node']}, peak RSS {h['peak_rss_bytes'] / 2**20:.0f} MiB")
if c := r.get("cloud_restart"):
    print(f"   cloud restarted after the edges synced: {c['summaries']} summaries of {c['edges']} edges held again"
          f" {c['resync_seconds']:.1f} s after it was up, {c['total_seconds']:.1f} s after the stop")
EOF
say "compared with the local run:"
"$python" -m simulation.compare_runs "$shared/local" "$shared/ray" | tee -a "$shared/report.md" || true

# 4. a worker killed while the cluster answers, then the run resumed
[ -n "${SKIP_KILL:-}" ] && { say "SKIP_KILL set: no worker killed"; exit 0; }
started=$(now)
cluster_run "$shared/fault" > "$shared/fault.log" 2>&1 &
run_pid=$!
written=0
while kill -0 "$run_pid" 2> /dev/null; do
    written=$( (cat "$shared"/fault/answers.partial.jsonl 2> /dev/null || true) | wc -l)
    [ "$written" -ge "$kill_after" ] && break
    sleep 1
done
"$docker" kill "${project}-ray-worker-2-1" > /dev/null
killed=$(now)
say "killed ray-worker-2 after $written answers ($(( killed - started )) s into the run)"
if wait "$run_pid"; then ended=0; else ended=$?; fi
kept=$( (cat "$shared"/fault/answers.partial.jsonl "$shared"/fault/answers.jsonl 2> /dev/null || true) | wc -l)
say "the run ended $(( $(now) - killed )) s after the kill with exit code $ended, $kept answers on disk; it said:"
(grep -iE "lost|died|unavailable|error|fail" "$shared/fault.log" || true) | tail -5 | sed 's/^/   /' | tee -a "$shared/report.md"
python3 - "$shared/fault" <<'EOF' | tee -a "$shared/report.md"
import json, sys
from pathlib import Path
rows = []
for name in ("answers.jsonl", "answers.partial.jsonl"):
    f = Path(sys.argv[1]) / name
    if f.exists():
        rows += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
failed = sorted({e for r in rows for e in r.get("edges_failed") or []})
hit = sum(1 for r in rows if r.get("edges_failed"))
print(f"   asks with an edge that failed to reply: {hit} of {len(rows)}; edges that failed: {', '.join(failed) or 'none'}")
EOF
if [ "$ended" != 0 ]; then
    compose start ray-worker-2 > /dev/null 2>&1
    sleep 10
    started=$(now)
    cluster_run "$shared/fault" > "$shared/resume.log" 2>&1 \
        || { tail -30 "$shared/resume.log" >&2; die "the resumed run failed"; }
    say "ray-worker-2 restarted and the same command run again (it resumes): $(( $(now) - started )) s"
fi
say "the run with the kill compared with the local run:"
"$python" -m simulation.compare_runs "$shared/local" "$shared/fault" | tee -a "$shared/report.md" || true
