#!/usr/bin/env bash
# STAND-INS for the two third-party images of docker-compose.yml (nats:2.12-alpine and
# postgres:17), for machines that reach no image registry: the same programs from Debian
# bookworm's own packages (nats-server 2.9, PostgreSQL 15), laid out so docker-compose.yml runs
# unchanged against them (deploy/podman/compose.podman.yml names them):
#   nats      ENTRYPOINT nats-server, so compose's `command` flags pass through; wget for the
#             compose health check.
#   postgres  docker-entrypoint.sh in PATH with the official image's contract for what compose
#             uses (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB; PGDATA; starts as root, owns the
#             data folder, runs as postgres; scram-sha-256 over TCP), pg_isready in PATH.
# Older majors than the pinned images: the services need nothing newer (the tests run on the
# same Debian versions).
#   deploy/podman/stand-in-images.sh      builds whichever of the two is missing, prints both tags
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
NATS_TAG="${NATS_TAG:-localhost/board-nats-stand-in:2.9}"
POSTGRES_TAG="${POSTGRES_TAG:-localhost/board-postgres-stand-in:15}"

# shellcheck source=minbase.sh
. "$here/minbase.sh"

if ! podman image exists "$NATS_TAG"; then
mmdebstrap "${MINBASE_FLAGS[@]}" --include=nats-server,wget bookworm "$work/nats.tar"
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENTRYPOINT ["nats-server"]' \
  --change 'EXPOSE 4222' --change 'EXPOSE 8222' \
  "$work/nats.tar" "$NATS_TAG" >/dev/null
fi

if ! podman image exists "$POSTGRES_TAG"; then
# postgresql-common makes a cluster "main" at install: the entrypoint makes its own in PGDATA.
# The postgres user is made first with the official image's UID/GID 999 (the dev overlay's pod
# runs as 999), so the package keeps it.
mmdebstrap "${MINBASE_FLAGS[@]}" --include=postgresql-15 \
  --essential-hook='echo "postgres:x:999:" >> "$1/etc/group"' \
  --essential-hook='echo "postgres:x:999:999:PostgreSQL administrator:/var/lib/postgresql:/bin/bash" >> "$1/etc/passwd"' \
  --essential-hook='if [ -f "$1/etc/shadow" ]; then echo "postgres:*:20000:0:99999:7:::" >> "$1/etc/shadow"; fi' \
  --customize-hook='rm -rf "$1"/var/lib/postgresql/15 "$1"/etc/postgresql/15' \
  --customize-hook="install -m 0755 '$here/postgres-entrypoint.sh' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
  bookworm "$work/postgres.tar"
podman import --quiet \
  --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["postgres"]' \
  --change 'EXPOSE 5432' \
  "$work/postgres.tar" "$POSTGRES_TAG" >/dev/null
fi
echo "$NATS_TAG"
echo "$POSTGRES_TAG"
