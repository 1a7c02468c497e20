#!/usr/bin/env bash
# A Python 3.11 base image for docker/*.Dockerfile made from Debian's own packages (debootstrap + docker import),
# for hosts that cannot pull python:3.11-slim from a registry:
#
#   bash scripts/debian_base_image.sh [TAG]        # as root; default dgrag-base:bookworm
#   DOCKER_BUILDKIT=1 docker build --build-arg PYTHON_IMAGE=dgrag-base:bookworm -f docker/edge.Dockerfile -t dgrag-edge .
#
# Needs root, debootstrap (apt-get install debootstrap) and a running Docker engine; installs nothing on the host.
# An image of that tag is kept (REBUILD=1 makes it again): a new base would rebuild both images from the start.
# The image holds a minimal Debian 12 with python3 (3.11), venv, pip, `python` (python-is-python3) and CA
# certificates, plus the host's own local CAs (/usr/local/share/ca-certificates), so pip inside a build works
# behind a TLS-inspecting proxy as it does on the host. DEBIAN_MIRROR picks the mirror (default http://deb.debian.org/debian).
set -euo pipefail

tag=${1:-dgrag-base:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
docker=${DOCKER:-docker}

die() { echo "debian_base_image: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "debootstrap needs root: run it as root (or with sudo)"
command -v debootstrap > /dev/null || die "debootstrap is missing: apt-get install -y debootstrap (as root)"
"$docker" info > /dev/null 2>&1 || die "no Docker engine answers ($docker info failed): start dockerd"
if [ -z "${REBUILD:-}" ] && "$docker" image inspect "$tag" > /dev/null 2>&1; then
    echo "== $tag exists: kept (REBUILD=1 makes it again)"
    exit 0
fi

root=$(mktemp -d /tmp/dgrag-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
started=$(date +%s)
echo "== debootstrap bookworm into $root (about a minute)"
debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates \
    bookworm "$root" "$mirror" > "$root.log" 2>&1 || { tail -20 "$root.log" >&2; die "debootstrap failed"; }
rm -f "$root.log"
if compgen -G "/usr/local/share/ca-certificates/*.crt" > /dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"   # for apt inside the chroot only; emptied below
chroot "$root" apt-get install -y --no-install-recommends python-is-python3 > /dev/null
chroot "$root" update-ca-certificates > /dev/null
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/*
: > "$root/etc/resolv.conf"
tar -C "$root" -c . | "$docker" import --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' - "$tag" > /dev/null
size=$("$docker" image inspect -f '{{.Size}}' "$tag")
echo "== $tag: $((size / 1000000)) MB, made in $(( $(date +%s) - started )) s"
