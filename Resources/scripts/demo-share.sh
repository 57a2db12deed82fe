#!/usr/bin/env bash
# The closing demonstration of issue 31: three people (Ann, Bob, Cat), each with their own personal
# vault, passphrase and account on one real Kinto, share "family": the invitation, an edit reaching
# everyone, a revocation, and the removed person's refused sync; Ann's screen (tmux); then every
# device of Ann's lost, and her two recovery kits (personal, then "family") making her a member again.
# Run: Resources/scripts/with-kinto.sh bash Resources/scripts/demo-share.sh (after `swift build`)
set -euo pipefail
C=${COFFER_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/.build/debug/coffer}
W=$(mktemp -d /tmp/coffer-demo.XXXX); cd "$W"
tag=$RANDOM
person() {  # NAME: a personal vault with an account of its own
  mkdir -p "$W/$1"; printf '%s passphrase\n' "$1" > "$W/$1/pass"; printf 'account-pw-%s\n' "$1" > "$W/$1/pw"
  chmod 600 "$W/$1/pass" "$W/$1/pw"
  $C --vault "$W/$1/vault.db" --passphrase-file "$W/$1/pass" init --kdf-memory 64 --kdf-iterations 3 >/dev/null 2>&1
  $C --vault "$W/$1/vault.db" account signup --server "$COFFER_TEST_KINTO_URL" --user "$1-$tag" --password-file "$W/$1/pw" >/dev/null 2>&1
}
as() { local who=$1; shift; $C --vault "$W/$who/$1" --passphrase-file "$W/$who/pass" "${@:2}" 2>&1; }
invite() {  # INVITER GUEST: both answer y once the numbers are shown
  mkfifo "$W/in-$2" "$W/out-$2"
  ( sleep 60 > "$W/in-$2" ) & holder=$!
  $C --vault "$W/$1/family.db" --passphrase-file "$W/$1/pass" share invite < "$W/in-$2" > "$W/host-$2.log" 2>&1 &
  host=$!
  until grep -q "Waiting for them" "$W/host-$2.log" 2>/dev/null; do sleep 0.2; done
  code=$(grep -o '[0-9A-Z]\{4\}-[0-9A-Z]\{4\}-[0-9A-Z]\{3\}' "$W/host-$2.log" | head -1)
  ( until grep -q "wants to join" "$W/host-$2.log"; do sleep 0.2; done; echo y > "$W/in-$2" ) &
  echo y | $C --vault "$W/$2/vault.db" --passphrase-file "$W/$2/pass" share join --code "$code" --name "$2" > "$W/guest-$2.log" 2>&1
  wait $host; kill $holder 2>/dev/null || true
  echo "### $1's terminal: coffer --vault family share invite"; cat "$W/host-$2.log"
  echo "### $2's terminal: coffer share join --code $code --name $2"; cat "$W/guest-$2.log"
}
for who in Ann Bob Cat; do person $who; done
echo "## Ann creates \"family\""
as Ann vault.db share create family --as Ann
as Ann family.db add --title Netflix --username ann@example.org --password 'n3tflix!' >/dev/null
as Ann family.db sync
echo "## Ann invites Bob, Bob invites Cat"
invite Ann Bob
invite Bob Cat
echo "## An edit reaching everyone: Cat changes the Netflix password"
as Cat family.db edit Netflix --password 'changed-by-cat'
as Cat family.db sync
for who in Ann Bob; do echo "### $who: sync, then show Netflix --field password"; as $who family.db sync; as $who family.db show Netflix --field password; done
echo "### Bob: share members"; as Bob family.db share members
echo "## Ann revokes Cat"
as Ann family.db share revoke Cat
echo "### Cat: sync (exit code shown)"; as Cat family.db sync || echo "exit $?"
echo "### Cat's raw request with her own account"
curl -s -o /dev/null -w 'GET items of the family bucket: HTTP %{http_code}\n' -u "Cat-$tag:account-pw-Cat" \
  "$COFFER_TEST_KINTO_URL/buckets/$(sqlite3 "$W/Ann/family.db" "select value from meta where key='share_vault'")/collections/items/records"
echo "### Bob: sync, share members"; as Bob family.db sync; as Bob family.db share members
echo "### Ann's screen (tmux, 100×16): the title names the vault; M lists its members"
tmux kill-session -t demo-share 2>/dev/null || true
tmux new-session -d -s demo-share -x 100 -y 16 "env LANG=C.UTF-8 TERM=tmux-256color $C --vault $W/Ann/family.db"
sleep 1; tmux send-keys -t demo-share 'Ann passphrase' Enter; sleep 3
tmux capture-pane -p -t demo-share
tmux send-keys -t demo-share M; sleep 1; tmux capture-pane -p -t demo-share
tmux kill-session -t demo-share
echo "## Ann's recovery kits: her personal vault's and her own of \"family\""
as Ann vault.db recovery-kit --output "$W/ann-kit.txt"
as Ann family.db recovery-kit --output "$W/ann-family-kit.txt"
sed "s/code: .*/code: (27 symbols)/" "$W/ann-family-kit.txt"
as Bob family.db add --title "Wi-Fi" --password 'after-the-kit' >/dev/null; as Bob family.db sync >/dev/null
echo "## Every device of Ann's lost: a new machine, a new passphrase"
mkdir -p "$W/Ann2"; printf 'Ann new passphrase\n' > "$W/Ann2/pass"; chmod 600 "$W/Ann2/pass"
echo "### coffer recover --kit-file ann-kit.txt"; as Ann2 vault.db recover --kit-file "$W/ann-kit.txt" --kdf-memory 64 --kdf-iterations 3
echo "### coffer recover --kit-file ann-family-kit.txt"; as Ann2 vault.db recover --kit-file "$W/ann-family-kit.txt"
echo "### coffer --vault family list"; as Ann2 family.db list
echo "### coffer --vault family share members"; as Ann2 family.db share members
echo "### coffer --vault family recovery-kit --rotate: the kit used is voided"
as Ann2 family.db recovery-kit --rotate --output "$W/ann-family-kit-2.txt"
mkdir -p "$W/Ann3"; cp "$W/Ann2/pass" "$W/Ann3/pass"  # her personal vault joined there with the new passphrase
as Ann3 vault.db join --server "$COFFER_TEST_KINTO_URL" --user "Ann-$tag" --password-file "$W/Ann/pw" >/dev/null
echo "### another machine: the old kit (exit code shown)"; as Ann3 vault.db recover --kit-file "$W/ann-family-kit.txt" || echo "exit $?"
