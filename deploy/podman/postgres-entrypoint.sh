#!/bin/sh
# The postgres STAND-IN's entrypoint (stand-in-images.sh): what docker-compose.yml relies on of
# the official image's docker-entrypoint.sh, and nothing more. As root: own PGDATA, then run
# again as postgres. As postgres: on an empty PGDATA, initdb with POSTGRES_USER as the superuser
# and POSTGRES_PASSWORD as its password (scram-sha-256 for every TCP client, trust on the local
# socket only), create POSTGRES_DB, run /docker-entrypoint-initdb.d's *.sh (run when executable,
# else sourced) and *.sql (psql) in name order against it on a server listening on the socket
# only, as the official image does, listen on every address; then exec the command.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "POSTGRES_PASSWORD is required" >&2; exit 1; }
  pwfile="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    psql --set=ON_ERROR_STOP=1 --username="$POSTGRES_USER" --dbname=postgres \
      --command="CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
  fi
  export POSTGRES_USER POSTGRES_DB PGUSER="$POSTGRES_USER" PGDATABASE="$POSTGRES_DB"
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh)
        echo "stand-in: running $f"
        # shellcheck disable=SC1090
        if [ -x "$f" ]; then "$f"; else . "$f"; fi ;;
      *.sql)
        echo "stand-in: running $f"
        psql --set=ON_ERROR_STOP=1 --no-psqlrc --username="$POSTGRES_USER" --dbname="$POSTGRES_DB" --file="$f" >/dev/null ;;
      *) if [ -e "$f" ]; then echo "stand-in: ignoring $f"; fi ;;
    esac
  done
  pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop >/dev/null
  echo "stand-in: initialised $PGDATA for $POSTGRES_USER/$POSTGRES_DB"
fi
exec "$@"
