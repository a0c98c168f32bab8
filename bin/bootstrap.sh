#!/usr/bin/env bash
# Installs convoy's npm packages on first use (and after package-lock.json changes).
# The librdkafka client (@confluentinc/kafka-javascript) has no prebuilt binary that can be
# fetched here: it is built against Debian's -dev packages with CKJS_LINKING=dynamic.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stamp="$here/node_modules/.convoy-installed"
fresh() { [ -f "$stamp" ] && [ "$stamp" -nt "$here/package-lock.json" ]; }
fresh && exit 0

# One install at a time: a second ./convoy started meanwhile waits for the first.
exec 9>"$here/.bootstrap.lock"
flock 9
fresh && exit 0

need_dev=(libssl-dev zlib1g-dev libzstd-dev libsasl2-dev libcurl4-openssl-dev liblz4-dev)
missing=()
for p in "${need_dev[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "convoy: installing build packages for the librdkafka client: ${missing[*]}" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  else
    echo "convoy: the librdkafka client needs: ${missing[*]}" >&2
    echo "convoy: run as root: apt-get install -y ${missing[*]}   (continuing; the confluent client will be unavailable)" >&2
  fi
fi
echo "convoy: installing npm packages (first use; building the librdkafka client takes a few minutes)" >&2
rm -f "$stamp"
(cd "$here" && CKJS_LINKING=dynamic npm ci --no-audit --no-fund --loglevel=error >&2)
touch "$stamp"
