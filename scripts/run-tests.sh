#!/usr/bin/env bash
# Runs the built test suite with the arguments given. When a test fails, the lines that name failures are
# repeated at the end, because CI logs are often read from their tail and the suite's summary line does not
# say which test failed.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"${SWIFT:-swift}" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo "---- failures, repeated from above ----"
    grep -E "✘|error:|Fatal error|Crash|signal" "$log" | head -60
fi
exit "$status"
