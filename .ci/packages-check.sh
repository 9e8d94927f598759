#!/usr/bin/env bash
# Checks .ci/run's Debian packages against a fresh machine, so a missing install step is found
# here and not by CI on a new machine: a minimal Debian bookworm root (mmdebstrap minbase) is
# given exactly the packages of .ci/run's `need` lines, installed as .ci/run installs them
# (apt-get's default: Recommends too), and every executable that the test suites, scripts and
# deploy checks run is looked for in it. Executables that every machine of this kind brings
# before .ci/run (Node and npm, the local services, kubectl, openssl) are looked for on this
# machine instead, since a minimal root has none of them.
#   bash .ci/packages-check.sh [DIR]     DIR: the root to build (or reuse); a temporary one if none
# Not run by CI: it downloads a Debian root (a few minutes, about 1.5 GB with chromium). Needs
# root and mmdebstrap (apt-get install -y mmdebstrap). Exits non-zero when anything is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mapfile -t packages < <(sed -n 's/^need \([^ ]*\) .*/\1/p' "$here/run")
[ "${#packages[@]}" -gt 0 ] || { echo "no 'need PACKAGE EXECUTABLE' lines in $here/run" >&2; exit 1; }

dir="${1:-}"
if [ -z "$dir" ]; then
  dir="$(mktemp -d)/root"
  trap 'rm -rf "$(dirname "$dir")"' EXIT
fi
if [ ! -x "$dir/usr/bin/apt-get" ]; then
  echo "building a minbase bookworm root in $dir with: ${packages[*]}"
  mmdebstrap --quiet --variant=minbase --aptopt='APT::Install-Recommends "true"' \
    --include="$(IFS=,; echo "${packages[*]}")" bookworm "$dir"
fi

status=0
# In the root: what .ci/run must bring (path or command name, and who runs it).
in_root() {
  local exe="$1" why="$2"
  if chroot "$dir" /bin/sh -c "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; command -v '$exe'" >/dev/null 2>&1; then
    printf 'ok       %-32s %s\n' "$exe" "$why"
  else
    printf 'MISSING  %-32s %s\n' "$exe" "$why"; status=1
  fi
}
# On this machine: what the machine's base brings before .ci/run (not in a minimal root).
on_base() {
  local exe="$1" why="$2"
  if command -v "$exe" >/dev/null 2>&1; then
    printf 'base     %-32s %s\n' "$exe" "$why"
  else
    printf 'MISSING  %-32s %s (expected from the machine base)\n' "$exe" "$why"; status=1
  fi
}

echo "== after .ci/run's installs on a minimal system"
in_root /usr/bin/chromium "test/integration landing-page, cors-browser (playwright-core)"
in_root yamllint "test/deploy/yamllint.test.ts"
in_root docker-compose "test/deploy/compose.test.ts, test/containers/stack.test.ts"
in_root promtool "test/deploy/prometheus-rules.test.ts (check rules, the alerts' unit tests)"
in_root podman "test/containers (engine.ts), deploy/podman/*.sh"
in_root runc "test/containers/engine.ts: runtime = runc"
in_root conmon "podman's container monitor"
in_root catatonit "podman kube play: the pause image (test/containers/kube.test.ts)"
in_root /usr/lib/podman/netavark "podman bridge networks (kube.test.ts, compose)"
in_root /usr/lib/podman/aardvark-dns "compose service names on podman networks"
in_root iptables "netavark's firewall and port-forward rules"
in_root mmdebstrap "deploy/podman/base-image.sh, stand-in-images.sh"
in_root bash "deploy/podman/*.sh, scripts/test-shipped-node.sh, .ci/run"
in_root sh "test/containers/engine.ts (ulimit), launcher (command -v)"
in_root tar "deploy/podman/base-image.sh, scripts/test-shipped-node.sh"
in_root gzip "tar -xz of the npm tarballs"
in_root setpriv "deploy/podman/postgres-entrypoint.sh (in the stand-in image's minbase root too)"
echo "== brought by Recommends, not run by the tests (rootless helpers, docker.io's init): informational"
for exe in slirp4netns newuidmap fuse-overlayfs tini; do
  if chroot "$dir" /bin/sh -c "PATH=/usr/sbin:/usr/bin:/sbin:/bin; command -v '$exe'" >/dev/null 2>&1; then
    printf 'present  %s\n' "$exe"
  else
    printf 'absent   %s\n' "$exe"
  fi
done
echo "== the machine's base (machines of this kind have them before .ci/run)"
on_base node "everything; test:shipped-node adds Node from npm"
on_base npm ".ci/run, base-image.sh (npm pack)"
on_base /usr/sbin/nats-server "test/integration/bus-auth, service-kit testing, launcher"
on_base pg_ctlcluster ".ci/run starts PostgreSQL"
on_base start-stop-daemon ".ci/run starts NATS"
on_base kubectl "test/deploy/manifests.ts: kubectl kustomize (Debian's kubernetes-client is 1.20, too old)"
on_base openssl "test/deploy/tls.test.ts"
exit "$status"
