#!/usr/bin/env bash
# Prints the failures of an XCTest log again, at its end: a CI log is often read from its tail only,
# and 936 passing lines push the one failing assertion out of sight.
set -uo pipefail
log=${1:?usage: failed-tests.sh LOG}
echo
echo "failed tests (from $log):"
grep -a -E ': error: |^Test Case .* failed \(|Fatal error|Exited with (signal|unexpected)' "$log" | head -60
echo "end of failed tests"
