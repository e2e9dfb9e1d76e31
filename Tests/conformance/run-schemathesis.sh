#!/usr/bin/env bash
# Schemathesis's conformance checks of openapi.yaml against a real `nimbus serve` on loopback
# (decision server-0019). Usage:
#   Tests/conformance/run-schemathesis.sh [path/to/nimbus] [seconds]
# The nimbus binary defaults to .build/debug/nimbus; the time budget to 120 seconds. Installs
# schemathesis (pinned) into a virtualenv under $NIMBUS_CONFORMANCE_VENV (default
# /tmp/nimbus-schemathesis-venv) when it is missing. NIMBUS_CONFORMANCE_CHECKS replaces the list of
# checks (for example "all"). Exits non-zero when a check fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

nimbus=$(realpath "${1:-.build/debug/nimbus}")
budget=${2:-120}
version=4.32.5
venv=${NIMBUS_CONFORMANCE_VENV:-/tmp/nimbus-schemathesis-venv}
# Python 3.11's parser fails inside Hypothesis in schemathesis's coverage phase ("SystemError:
# AST constructor recursion depth mismatch", a CPython bug fixed in 3.12): use a newer Python when
# there is one, and otherwise leave that phase out.
python=python3
for candidate in python3.13 python3.12; do
  if "$candidate" -c 'import venv' >/dev/null 2>&1; then python=$candidate; break; fi
done
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==$version"
fi
phases=examples,coverage,fuzzing
if ! "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
  phases=examples,fuzzing
  echo "note: $("$venv/bin/python" --version) runs schemathesis without its coverage phase (a CPython 3.11 parser bug)"
fi

work=$(mktemp -d /tmp/nimbus-conformance.XXXXXX)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

data="$work/server"
"$nimbus" users add alice --data-dir "$data" >/dev/null
"$nimbus" users add bob --data-dir "$data" >/dev/null
token=$("$nimbus" tokens create --user alice --device schemathesis --data-dir "$data")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# No rate limit: the run measures answers, not throttling (429 is documented and tested elsewhere).
"$nimbus" serve --data-dir "$data" --host 127.0.0.1 --port "$port" --rate-limit 0 --log-level error 2>"$work/serve.log" &
server=$!
python3 - "$port" <<'PY'
import sys, time, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=1)
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit("nimbus serve did not answer /health")
PY

checks=${NIMBUS_CONFORMANCE_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,unsupported_method,allow_header_conformance,ignored_auth,missing_required_header}
# Run from the temporary folder: schemathesis keeps a cache of what it found in the working directory.
document=$(realpath openapi.yaml)
set +e
(cd "$work" && "$venv/bin/schemathesis" run "$document" \
  --url "http://127.0.0.1:$port" \
  --header "Authorization: Bearer $token" \
  --checks "$checks" \
  --phases "$phases" \
  --max-time "$budget" \
  --max-examples 60 \
  --workers 2 \
  --seed 27 \
  --generation-database none \
  --suppress-health-check all \
  --request-timeout 20)
status=$?
set -e
if [ "$status" -ne 0 ] && [ -s "$work/serve.log" ]; then
  echo "=== nimbus serve's log ==="
  tail -50 "$work/serve.log"
fi
exit "$status"
