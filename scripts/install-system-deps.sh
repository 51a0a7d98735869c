#!/usr/bin/env bash
# Installs the Debian packages the test suite needs, only those missing. Run as root (CI is root);
# without root it says what to install instead of failing later with a confusing error.
# With command names as arguments (`install-system-deps.sh bwrap`, as `make demo` does), only the
# packages of those commands.
set -euo pipefail
declare -A need=(
  [go]=golang-go
  [hyperfine]=hyperfine
  [chromium]=chromium
  [podman]=podman
  [buildah]=buildah
  [runc]=runc
  [fuse-overlayfs]=fuse-overlayfs
  [slirp4netns]=slirp4netns
  [newuidmap]=uidmap
  [debootstrap]=debootstrap
  [git]=git
  [g++]=g++
  [node]=nodejs
  [npm]=npm
  [bwrap]=bubblewrap
)
missing=()
wanted=("$@")
if [ ${#wanted[@]} -eq 0 ]; then
  wanted=("${!need[@]}")
  # Google Benchmark has no command of its own: look for its header.
  [ -f /usr/include/benchmark/benchmark.h ] || missing+=(libbenchmark-dev)
fi
for cmd in "${wanted[@]}"; do
  if [ -z "${need[$cmd]:-}" ]; then
    echo "unknown command $cmd; fix: name one of: ${!need[*]}" >&2
    exit 2
  fi
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${need[$cmd]}")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${missing[*]}" >&2
  echo "  fix: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
