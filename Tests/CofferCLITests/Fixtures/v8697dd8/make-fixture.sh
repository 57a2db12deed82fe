#!/usr/bin/env bash
# Makes the v8697dd8 fixture: run as
#   Resources/scripts/with-kinto.sh bash make-fixture.sh OLD_COFFER OUTPUT_DIR
# with OLD_COFFER the `coffer` built at commit 8697dd8 (`swift build --product coffer`).
set -euo pipefail
old=$1
out=$2
server=${COFFER_TEST_KINTO_URL:?run under Resources/scripts/with-kinto.sh}
work=$(mktemp -d)
mkdir -p "$out" "$work/home" "$work/laptop" "$work/desktop" "$work/tablet"
env_run() { env -i PATH=/usr/bin:/bin HOME="$work/home" XDG_DATA_HOME="$work/home/data" \
    XDG_RUNTIME_DIR="$work/home" LANG=C.UTF-8 TERM=dumb "$old" "$@"; }

printf 'old vault passphrase 8697dd8\n' > "$work/passphrase"
printf 'fixture-account-password\n' > "$work/account-password"
chmod 600 "$work/passphrase" "$work/account-password"
laptop=(--vault "$work/laptop/vault.db" --passphrase-file "$work/passphrase")
desktop=(--vault "$work/desktop/vault.db" --passphrase-file "$work/passphrase")
tablet=(--vault "$work/tablet/vault.db" --passphrase-file "$work/passphrase")

env_run "${laptop[@]}" init --kdf-memory 64 --kdf-iterations 3
env_run "${laptop[@]}" device rename laptop
env_run "${laptop[@]}" account signup --server "$server" --user fixture-8697dd8 \
    --password-file "$work/account-password"

mail=$(env_run "${laptop[@]}" add --title Mail --username ann --password mail-pass-1 \
    --totp JBSWY3DPEHPK3PXP --origin https://mail.example.com --tag work --notes "the mail login")
codes=$(env_run "${laptop[@]}" add --kind note --title "Door codes" --notes "front 1234, back 5678" --tag home)
visa=$(env_run "${laptop[@]}" add --kind card --title Visa --field "cardholder=Ann Example" \
    --field number=4111111111111111 --field expiry_month=7 --field expiry_year=2031 \
    --field code=123 --field Bank=ACME --hidden-field "PIN hint=birthday")
forum=$(env_run "${laptop[@]}" add --title "Old forum" --username ann --password forum-pass --origin forum.example.org)
bank=$(env_run "${laptop[@]}" add --title Bank --username ann --password bank-pass-1 --origin bank.example.com)
printf 'small attachment, made by 8697dd8\n' > "$work/codes.txt"
env_run "${laptop[@]}" attach "$codes" "$work/codes.txt" --name codes.txt
env_run "${laptop[@]}" sync --unlock

# The tablet joins now and is not used again: it last synced before the edits and the removal.
env_run "${tablet[@]}" join --server "$server" --user fixture-8697dd8 \
    --password-file "$work/account-password" --name tablet
env_run "${tablet[@]}" sync --unlock
env_run "${laptop[@]}" sync --unlock

env_run "${laptop[@]}" edit "$bank" --password bank-pass-2
env_run "${laptop[@]}" sync --unlock
env_run "${laptop[@]}" edit "$bank" --password bank-pass-3 --notes "edited twice"
env_run "${laptop[@]}" rm "$forum"
env_run "${laptop[@]}" sync --unlock

env_run "${desktop[@]}" join --server "$server" --user fixture-8697dd8 \
    --password-file "$work/account-password" --name desktop
env_run "${desktop[@]}" sync --unlock
env_run "${laptop[@]}" sync --unlock
env_run "${desktop[@]}" sync --unlock
env_run "${laptop[@]}" status --json > "$work/laptop-status.json"
env_run "${desktop[@]}" status --json > "$work/desktop-status.json"
env_run "${tablet[@]}" status --json > "$work/tablet-status.json"
env_run "${laptop[@]}" list --json > "$out/laptop-list.json"

# What the server holds for the account, tombstones included (`_since=0`).
auth="fixture-8697dd8:fixture-account-password"
curl -fsS -u "$auth" "$server/buckets/default/collections" > "$work/collections.json"
python3 - "$work/collections.json" > "$work/names" <<'PY'
import json, sys
print("\n".join(sorted(c["id"] for c in json.load(open(sys.argv[1]))["data"])))
PY
mkdir -p "$out/server"; : > "$out/server/etags.txt"
for collection in $(cat "$work/names"); do
    etag=$(curl -fsS -o /dev/null -D - -u "$auth" "$server/buckets/default/collections/$collection/records?_limit=1" \
        | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: "\(.*\)"$/\1/p')
    printf '%s %s\n' "$collection" "$etag" >> "$out/server/etags.txt"
    curl -fsS -u "$auth" "$server/buckets/default/collections/$collection/records?_since=0&_sort=last_modified&_limit=10000" \
        | python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["data"], sys.stdout, indent=1, sort_keys=True)' \
        > "$out/server/$collection.json"
done

# The vault files, after every process exited. 8697dd8 leaves its write-ahead log beside the
# file; SQLite's own checkpoint moves those pages into the file, so one file holds the vault.
for device in laptop desktop tablet; do
    python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()); c.close()' \
        "$work/$device/vault.db"
    cp "$work/$device/vault.db" "$out/$device.db"
done
cat > "$out/ids.json" <<JSON
{"mail": "$mail", "codes": "$codes", "visa": "$visa", "forum": "$forum", "bank": "$bank"}
JSON
cp "$work/laptop-status.json" "$work/desktop-status.json" "$work/tablet-status.json" "$out/"
rm -rf "$work"
