#!/usr/bin/env bash
# Installs convoy's npm packages on first use (and after package-lock.json changes).
# The librdkafka client (@confluentinc/kafka-javascript) has no prebuilt binary that can be
# fetched here: it is built against Debian's -dev packages with CKJS_LINKING=dynamic.
# This runs before node can: its package list is brokers/kafka/requirements.ts' LIBRDKAFKA_BUILD
# (a test keeps the two the same). Failures end with one line naming the fix, and exit 3.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stamp="$here/node_modules/.convoy-installed"
fresh() { [ -f "$stamp" ] && [ "$stamp" -nt "$here/package-lock.json" ]; }
fail() { echo "convoy: $1" >&2; [ -n "${2:-}" ] && tail -n 8 "$2" | sed 's/^/  /' >&2; exit 3; }
fresh && exit 0

# The Node convoy runs on is written once, in .node-version (CI's setup-node reads it too).
want=$(tr -dc '0-9' <"$here/.node-version" 2>/dev/null); want=${want:-20}
command -v node >/dev/null || fail "node is missing: install Node.js $want (https://nodejs.org, or Debian: apt-get install -y nodejs npm)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge "$want" ] || fail "node $(node --version) is too old: convoy needs Node.js $want or newer"
command -v npm >/dev/null || fail "npm is missing: install it (Debian: apt-get install -y npm)"

# One install at a time: a second ./convoy started meanwhile waits for the first.
exec 9>"$here/.bootstrap.lock"
flock 9
fresh && exit 0

log=$(mktemp -t convoy-bootstrap.XXXXXX)
need_dev=(libssl-dev zlib1g-dev libzstd-dev libsasl2-dev libcurl4-openssl-dev liblz4-dev)
missing=()
for p in "${need_dev[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  # Root installs; another user through sudo when it needs no password (a hosted CI runner).
  apt=()
  if [ "$(id -u)" = 0 ]; then apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then apt=(sudo -n env DEBIAN_FRONTEND=noninteractive apt-get); fi
  if [ ${#apt[@]} -gt 0 ] && command -v apt-get >/dev/null; then
    echo "convoy: installing build packages for the librdkafka client: ${missing[*]}" >&2
    "${apt[@]}" update -qq >"$log" 2>&1 \
      || fail "apt-get update failed (is the Debian mirror reachable?); then run: apt-get install -y ${missing[*]}" "$log"
    "${apt[@]}" install -y -qq "${missing[@]}" >"$log" 2>&1 \
      || fail "apt-get install ${missing[*]} failed; see the lines below" "$log"
  else
    echo "convoy: the librdkafka client needs: ${missing[*]}" >&2
    echo "convoy: run as root (or give this user sudo without a password): apt-get install -y ${missing[*]}   (continuing; the confluent client will be unavailable)" >&2
  fi
fi
echo "convoy: installing npm packages (first use; building the librdkafka client takes a few minutes)" >&2
rm -f "$stamp"
(cd "$here" && CKJS_LINKING=dynamic npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1 \
  || fail "npm ci failed (is the npm registry reachable?); fix it, then run ./convoy again" "$log"
rm -f "$log"
touch "$stamp"
