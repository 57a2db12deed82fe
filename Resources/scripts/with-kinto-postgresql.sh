#!/usr/bin/env bash
# Runs a command with Kinto on a private PostgreSQL cluster (initdb/pg_ctl as the postgres user,
# then `kinto migrate`), both on free loopback ports; stops both afterwards, also on failure.
# The command sees COFFER_TEST_KINTO_URL, and COFFER_TEST_KINTO_PID and COFFER_TEST_PG_DATA (the
# cluster's data directory, whose postmaster.pid names the server) for measuring their CPU.
# COFFER_KINTO_INI picks another configuration than Resources/kinto/postgresql.ini.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/.venv"
ini="${COFFER_KINTO_INI:-$root/Resources/kinto/postgresql.ini}"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
for name in $(env | grep -o '^KINTO_[A-Z_]*' || true); do unset "$name"; done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

cluster=$(mktemp -d -t coffer-pg.XXXXXX)
chown postgres "$cluster"
pgport=$(free_port)
kinto_pid=""
stop() {
    if [ -n "$kinto_pid" ]; then kill "$kinto_pid" 2>/dev/null || true; wait "$kinto_pid" 2>/dev/null || true; fi
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$cluster/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$cluster"
}
trap stop EXIT INT TERM

runuser -u postgres -- "$pgbin/initdb" -D "$cluster/data" -A trust -U postgres >"$cluster/initdb.log" 2>&1 \
    || { cat "$cluster/initdb.log" >&2; exit 1; }
runuser -u postgres -- "$pgbin/pg_ctl" -D "$cluster/data" -l "$cluster/postgres.log" -w \
    -o "-p $pgport -k $cluster -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
    || { cat "$cluster/postgres.log" >&2; exit 1; }
runuser -u postgres -- "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres kinto

url="postgresql://postgres@127.0.0.1:$pgport/kinto"
export KINTO_STORAGE_URL="$url" KINTO_CACHE_URL="$url" KINTO_PERMISSION_URL="$url"
"$venv/bin/kinto" migrate --ini "$ini" >"$cluster/migrate.log" 2>&1 || { cat "$cluster/migrate.log" >&2; exit 1; }

port=$(free_port)
KINTO_INI="$ini" "$venv/bin/kinto" start --ini "$ini" --port "$port" >"$cluster/kinto.log" 2>&1 &
kinto_pid=$!
for _ in $(seq 1 150); do
    kill -0 "$kinto_pid" 2>/dev/null || { cat "$cluster/kinto.log" >&2; exit 1; }
    curl -fsS "http://127.0.0.1:$port/v1/__heartbeat__" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/v1/__heartbeat__" >/dev/null || { cat "$cluster/kinto.log" >&2; exit 1; }

export COFFER_TEST_KINTO_URL="http://127.0.0.1:$port/v1" COFFER_TEST_KINTO_PID="$kinto_pid" COFFER_TEST_PG_DATA="$cluster/data"
echo "Kinto on PostgreSQL $COFFER_TEST_KINTO_URL (database port $pgport)"
set +e
"$@"
status=$?
set -e
exit $status
