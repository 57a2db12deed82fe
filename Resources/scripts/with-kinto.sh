#!/usr/bin/env bash
# Runs a command with a fresh in-memory Kinto on a free loopback port, then stops the server,
# also when the command fails. The command sees COFFER_TEST_KINTO_URL.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kinto="$root/.venv/bin/kinto"
ini="$root/Resources/kinto/memory.ini"
log=$(mktemp -t coffer-kinto.XXXXXX.log)

# KINTO_* variables override the ini; one leaking in from the environment would change the server.
for name in $(env | grep -o '^KINTO_[A-Z_]*' || true); do unset "$name"; done

pid=""
stop() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; }
trap stop EXIT INT TERM

for attempt in 1 2 3 4 5; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    KINTO_INI="$ini" "$kinto" start --ini "$ini" --port "$port" >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do
        if ! kill -0 "$pid" 2>/dev/null; then break; fi
        if curl -fsS "http://127.0.0.1:$port/v1/__heartbeat__" >/dev/null 2>&1; then break 2; fi
        sleep 0.1
    done
    stop; pid=""
done
if [ -z "$pid" ]; then echo "Kinto did not start; its log:" >&2; cat "$log" >&2; exit 1; fi

export COFFER_TEST_KINTO_URL="http://127.0.0.1:$port/v1"
echo "Kinto $COFFER_TEST_KINTO_URL (pid $pid)"
set +e
"$@"
status=$?
set -e
exit $status
