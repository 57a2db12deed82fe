#!/usr/bin/env bash
# The closing demonstration of issue 32, on a laptop and a phone (two vaults of one account on a
# real Kinto): unlock, ssh into a loopback sshd through Coffer's agent, `coffer run` with a dotenv
# file, a `git clone` with `credential.helper coffer`, then a remote lock and the same ssh refused.
# Run as root (sshd): Resources/scripts/with-kinto.sh bash Resources/scripts/demo-where-used.sh
# (after `swift build`, or with COFFER_BIN=.build/release/coffer).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
C=${COFFER_BIN:-$ROOT/.build/debug/coffer}
W=$(mktemp -d /tmp/coffer-demo.XXXX); cd "$W"
export HOME=$W/home XDG_RUNTIME_DIR=$W/run GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1 LANG=C.UTF-8
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$W/bin"; chmod 700 "$XDG_RUNTIME_DIR"
ln -s "$C" "$W/bin/coffer"; cp "$ROOT/Resources/scripts/git-credential-coffer" "$W/bin/"; export PATH=$W/bin:$PATH
printf 'demo passphrase\n' > pass; printf 'account-pw-%s\n' $RANDOM > pw; chmod 600 pass pw
user=demo-$RANDOM
laptop() { coffer --vault "$W/laptop.db" --passphrase-file "$W/pass" "$@"; }
phone() { coffer --vault "$W/phone.db" --passphrase-file "$W/pass" "$@"; }
show() { echo "\$ $*"; "$@" 2>&1 || echo "(exit $?)"; }
cleanup() { [ -f "$W/sshd/pid" ] && kill "$(cat "$W/sshd/pid")" 2>/dev/null; [ -n "${git_server:-}" ] && kill "$git_server" 2>/dev/null
            pkill -f "coffer --vault $W" 2>/dev/null || true; }
trap cleanup EXIT

laptop init --kdf-memory 64 --kdf-iterations 3 >/dev/null 2>&1
laptop account signup --server "$COFFER_TEST_KINTO_URL" --user "$user" --password-file pw >/dev/null 2>&1
coffer --vault "$W/phone.db" --passphrase-file pass join --server "$COFFER_TEST_KINTO_URL" --user "$user" --password-file pw >/dev/null 2>&1
laptop device rename laptop >/dev/null 2>&1; phone device rename phone >/dev/null 2>&1
for v in laptop phone; do $v sync --unlock >/dev/null 2>&1; done

echo "## On the laptop: an SSH key made in the vault, synced"
show laptop ssh generate deploy --type ed25519 --comment deploy@laptop
show laptop sync

echo "## A loopback sshd that accepts that key only"
mkdir -p "$W/sshd" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$W/sshd/host" >/dev/null
laptop show deploy --field public-key > "$W/sshd/authorized_keys" 2>/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$W/sshd/config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $W/sshd/host
PidFile $W/sshd/pid
AuthorizedKeysFile $W/sshd/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
EOF
/usr/sbin/sshd -f "$W/sshd/config" -E "$W/sshd/log"
sshin() { ssh -F /dev/null -p "$port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
          -o BatchMode=yes root@127.0.0.1 "$@"; }

echo "## On the phone: sync, unlock (its agent syncs every second), ssh in with Coffer's agent"
show phone sync
show phone unlock --sync-every 1
export SSH_AUTH_SOCK=$(phone ssh socket 2>/dev/null)
show ssh-add -l
show sshin 'echo "logged in as $(whoami) through Coffer'"'"'s agent"'

echo "## coffer run with a dotenv file"
phone add --title "Payments API" --username svc --password 'tok-7f3a91c2' >/dev/null 2>&1
printf '# secrets come from the vault, never from this file\nAPI_USER="coffer://Payments API/username"\nAPI_TOKEN="coffer://Payments API/password"\n' > .env
show cat .env
show phone run --env-file .env -- sh -c 'echo "user=$API_USER token-length=${#API_TOKEN}"'
show phone run --env-file .env --mask -- sh -c 'echo "the program printed: $API_TOKEN"'
show phone run --env-file .env -- sh -c 'exit 7'

echo "## git clone over HTTP with credential.helper coffer"
mkdir -p "$W/git/team" && git init -q --bare "$W/git/team/app.git"
git -C "$W/git/team/app.git" config http.receivepack true
git init -q "$W/seed" && git -C "$W/seed" -c user.name=demo -c user.email=d@x commit -q --allow-empty -m "first commit"
git -C "$W/seed" push -q "$W/git/team/app.git" HEAD:refs/heads/main 2>/dev/null
git -C "$W/git/team/app.git" symbolic-ref HEAD refs/heads/main
python3 "$ROOT/Resources/scripts/git-http-server.py" "$W/git" alice 'git-s3cret' > "$W/git-port" 2>/dev/null & git_server=$!
until [ -s "$W/git-port" ]; do sleep 0.1; done; gport=$(head -1 "$W/git-port")
phone add --title "Team git" --username alice --password 'git-s3cret' --origin "http://127.0.0.1:$gport/team" >/dev/null 2>&1
export COFFER_VAULT=$W/phone.db
show git -c credential.helper= clone -q "http://127.0.0.1:$gport/team/app.git" "$W/without-helper"
show git -c credential.helper=coffer -c credential.useHttpPath=true clone "http://127.0.0.1:$gport/team/app.git" "$W/with-helper"
show git -C "$W/with-helper" log --oneline

echo "## On the laptop: lock the phone remotely"
show laptop device lock phone
for _ in $(seq 1 30); do ssh-add -l >/dev/null 2>&1 || break; sleep 1; done
echo "## On the phone, the same ssh, seconds later"
show ssh-add -l
show sshin 'echo "this line is never printed"'
