#!/usr/bin/env bash
# Builds the root action's image with podman and runs it the way GitHub runs a Docker action,
# without a Docker engine or a registry (docs/github-actions.md "Running the image locally or behind a proxy").
#
#   scripts/container-test.sh base            debootstrap + import localhost/debian-base:bookworm (cached)
#   scripts/container-test.sh build           base, then build localhost/ordertrap-gate:test
#   scripts/container-test.sh run ARGS...     podman run with the engine settings below (ARGS as given)
#
# Cache: ORDERTRAP_PODMAN_CACHE (default /var/tmp/ordertrap-podman) holds the engine config and
# the debootstrapped rootfs tarball, so a rerun on the same machine skips debootstrap.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${ORDERTRAP_PODMAN_CACHE:-/var/tmp/ordertrap-podman}"
BASE_IMAGE="${ORDERTRAP_BASE_IMAGE:-localhost/debian-base:bookworm}"
IMAGE="${ORDERTRAP_IMAGE:-localhost/ordertrap-gate:test}"
mkdir -p "$CACHE"

# Engine settings through CONTAINERS_CONF so nothing under /etc changes. runc because crun
# rejects hybrid cgroup layouts; ulimits within the hard limit root may set on this host.
nofile="$(ulimit -Hn)"
[ "$nofile" = unlimited ] && nofile=1048576
cat >"$CACHE/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=32768:32768"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$CACHE/containers.conf"

# The apt mirror this host uses (deb822 sources first, then the one-line format).
mirror() {
  local uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri="$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list)"
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

base() {
  if podman image exists "$BASE_IMAGE"; then
    return 0
  fi
  local tarball="$CACHE/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    local rootfs="$CACHE/rootfs"
    rm -rf "$rootfs"
    echo "debootstrap bookworm minbase from $(mirror) (about 30 s)" >&2
    debootstrap --variant=minbase bookworm "$rootfs" "$(mirror)" >"$CACHE/debootstrap.log" 2>&1 || {
      tail -20 "$CACHE/debootstrap.log" >&2
      echo "debootstrap failed; fix: check the mirror in /etc/apt/sources.list.d/debian.sources" >&2
      exit 1
    }
    tar -C "$rootfs" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
    rm -rf "$rootfs"
  fi
  podman import --change 'CMD ["/bin/bash"]' "$tarball" "$BASE_IMAGE" >/dev/null
}

build() {
  base
  # A host that trusts an intercepting proxy's CA: mount its bundle and a pip config for the
  # build only (nothing is copied into the image). Harmless where the bundle is not needed.
  local extra=()
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    printf '[global]\ncert = /etc/pip-host-ca.crt\n' >"$CACHE/pip-build.conf"
    extra+=(-v /etc/ssl/certs/ca-certificates.crt:/etc/pip-host-ca.crt:ro -v "$CACHE/pip-build.conf:/etc/pip.conf:ro")
  fi
  podman build -q --format docker --isolation=chroot --network host "${extra[@]}" \
    --build-arg "BASE=$BASE_IMAGE" -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT"
}

case "${1:-}" in
  base) base ;;
  build) build ;;
  run) shift; exec podman run "$@" ;;
  *) echo "usage: $0 base|build|run ARGS..." >&2; exit 2 ;;
esac
