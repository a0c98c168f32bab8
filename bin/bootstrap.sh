#!/usr/bin/env bash
# Installs convoy's npm packages on first use, after package-lock.json changes, and for each Node
# ABI convoy runs on (bin/node-select.sh chooses the Node).
# The librdkafka client (@confluentinc/kafka-javascript) has no prebuilt binary that can be
# fetched here: it is built against Debian's -dev packages with CKJS_LINKING=dynamic.
# This runs before node can: its package list is brokers/kafka/requirements.ts' LIBRDKAFKA_BUILD
# (a test keeps the two the same). Failures end with one line naming the fix, and exit 3.
#
# Native modules are kept per ABI, so switching Node never loads one built for another: each
# build's addon moves from build/Release/ to lib/binding/node-v<abi>-<platform>-<arch>/, a folder
# the `bindings` loader both modules use searches (after build/Release, which is left without it).
# The stamp, node_modules/.convoy-installed, holds the lock file's hash and the ABIs built.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stamp="$here/node_modules/.convoy-installed"
fail() { echo "convoy: $1" >&2; [ -n "${2:-}" ] && tail -n 8 "$2" | sed 's/^/  /' >&2; exit 3; }
# shellcheck source=node-select.sh
source "$here/bin/node-select.sh"
node_use
abi=$CONVOY_NODE_ABI
lock=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
# The modules convoy loads that are built here, each as <package>:<addon name>.
native=(better-sqlite3:better_sqlite3 @confluentinc/kafka-javascript:confluent-kafka-javascript)
installed() { [ -f "$stamp" ] && grep -qx "lock $lock" "$stamp"; }
fresh() { installed && grep -qx "abi $abi" "$stamp"; }
fresh && exit 0
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
# Moves each native module's addon, as just built, into its folder for this ABI.
keep_for_abi() {
  local entry pkg name dir target lib
  local binding="node-v$abi-$(node -p 'process.platform + "-" + process.arch')" # the loader's name for it
  for entry in "${native[@]}"; do
    pkg=${entry%%:*} name=${entry#*:}
    dir="$here/node_modules/$pkg"
    [ -f "$dir/build/Release/$name.node" ] || continue # not built (the librdkafka client is optional)
    target="$dir/lib/binding/$binding"
    mkdir -p "$target" && mv -f "$dir/build/Release/$name.node" "$target/$name.node" || return 1
    # The shared libraries built beside an addon, which it finds through its run path,
    # $ORIGIN/../deps (the librdkafka client's); the same for every ABI.
    for lib in "$dir"/build/deps/*.so*; do
      [ -e "$lib" ] || continue
      mkdir -p "$dir/lib/binding/deps" && cp -a "$lib" "$dir/lib/binding/deps/" || return 1
    done
  done
}

if installed; then
  echo "convoy: building the native modules for Node $(node --version) (ABI $abi; a few minutes)" >&2
  for entry in "${native[@]}"; do
    pkg=${entry%%:*}
    (cd "$here" && CKJS_LINKING=dynamic npm rebuild "$pkg" --no-audit --no-fund --loglevel=error) >"$log" 2>&1 && continue
    # The librdkafka client is optional, as in npm ci: without it, client: confluent is unavailable.
    [ "$pkg" = @confluentinc/kafka-javascript ] || fail "npm rebuild $pkg for Node $(node --version) failed; see the lines below" "$log"
    echo "convoy: the librdkafka client did not build for Node $(node --version); the confluent client is unavailable on it (./convoy doctor)" >&2
  done
  keep_for_abi || fail "could not keep the native modules built for ABI $abi"
  echo "abi $abi" >>"$stamp"
  rm -f "$log"
  exit 0
fi
echo "convoy: installing npm packages for Node $(node --version) (first use; building the librdkafka client takes a few minutes)" >&2
rm -f "$stamp"
(cd "$here" && CKJS_LINKING=dynamic npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1 \
  || fail "npm ci failed (is the npm registry reachable?); fix it, then run ./convoy again" "$log"
keep_for_abi || fail "could not keep the native modules built for ABI $abi"
rm -f "$log"
printf 'lock %s\nabi %s\n' "$lock" "$abi" >"$stamp"
