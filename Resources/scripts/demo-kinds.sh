#!/usr/bin/env bash
# The closing demonstration of issue 30: a card, an identity and a login with custom fields and a
# file made on device A (CLI), synced through a real Kinto to device B (joined), printed there by
# `show --json --reveal` and by the screen (tmux). Run: Resources/scripts/with-kinto.sh bash Resources/scripts/demo-kinds.sh (after `swift build`)
set -euo pipefail
C=${COFFER_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/.build/debug/coffer}
W=$(mktemp -d /tmp/coffer-demo.XXXX); cd "$W"
printf 'correct horse battery staple\n' > pass; printf 'account-pw-123456\n' > pw; chmod 600 pass pw
export COFFER_PASSPHRASE_FILE="$W/pass"
A="--vault $W/a.db --passphrase-file $W/pass"; B="--vault $W/b.db --passphrase-file $W/pass"
echo "## device A"
$C $A init 2>&1
$C $A account signup --server "$COFFER_TEST_KINTO_URL" --user demo --password-file pw 2>&1
$C $A add --kind card --title "Visa" --field cardholder="Ann Example" --hidden-field number=4111111111111111 \
   --field expiry_month=7 --field expiry_year=2030 --hidden-field code=123 --hidden-field pin=9876 2>&1
$C $A add --kind identity --title "Me" --field first_name=Ann --field last_name=Example --field email=ann@example.org \
   --field phone="+33 1 23 45 67 89" --field city=Lyon --hidden-field passport=X1234567 2>&1
$C $A add --title "Bank" --username ann --password 'S3cret!pw' --origin https://bank.example \
   --field "Customer number=C-1042" --hidden-field "Recovery PIN=2468" --field "Branch=Lyon Part-Dieu" 2>&1
head -c 1048576 /dev/urandom > statement.pdf
$C $A attach Bank statement.pdf 2>&1
$C $A sync 2>&1
echo "## device B"
$C $B join --server "$COFFER_TEST_KINTO_URL" --user demo --password-file pw 2>&1
$C $B sync 2>&1 || true
for title in Visa Me Bank; do echo "### B: coffer show $title --json --reveal"; $C $B show "$title" --json --reveal; done
echo "### B: coffer attachments Bank"; $C $B attachments Bank
$C $B attachment Bank statement.pdf --output "$W/statement-b.pdf"
echo "### sha256 on A and on B"; sha256sum statement.pdf statement-b.pdf | sed "s|$W/||"
echo "### the screen on B (tmux, 100×30)"
tmux kill-session -t demo 2>/dev/null || true
tmux new-session -d -s demo -x 100 -y 30 "env LANG=C.UTF-8 TERM=tmux-256color $C --vault $W/b.db"
sleep 1; tmux send-keys -t demo 'correct horse battery staple' Enter; sleep 3
echo "#### the list"; tmux capture-pane -p -t demo
for filter in kind:card kind:identity Bank; do
  tmux send-keys -t demo / ; tmux send-keys -t demo -l "$filter"; tmux send-keys -t demo Enter; sleep 0.5
  tmux send-keys -t demo Enter; sleep 1
  echo "#### filter $filter, ↵: the detail"; tmux capture-pane -p -t demo
  tmux send-keys -t demo Escape; sleep 0.3; tmux send-keys -t demo Escape; sleep 0.3
done
tmux send-keys -t demo q; sleep 0.5; tmux kill-session -t demo 2>/dev/null || true
