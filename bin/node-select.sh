#!/usr/bin/env bash
# Which Node convoy runs on, decided before any of it runs (sourced by ./convoy and
# bin/bootstrap.sh; run on its own, it prints the chosen node's path).
#
# The rule, in order:
#   1. CONVOY_NODE names a node binary: that one (refused when it is not a supported line);
#   2. the system's `node`, when it is a supported line (package.json's engines.node);
#   3. otherwise the Node in .node-version, fetched once from the npm registry (the
#      node-linux-<arch> package: the binary and the headers native builds need, but no npm) into
#      <cache>/node/<version>/.
# The chosen node's folder goes first on PATH, so every `node` convoy, npm and node-gyp start is
# that one; npm_config_nodedir points native builds at its headers (the machine's npm may name
# another Node's). Failures end with one line naming the fix, and exit 3.

convoy_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

node_fail() { echo "convoy: $1" >&2; exit 3; }

# The lowest version convoy supports: package.json's "engines": { "node": ">=X.Y.Z" }.
node_minimum() { grep -o '"node": *">=[0-9.]*"' "$convoy_root/package.json" | grep -o '[0-9][0-9.]*'; }

# True when version $1 (x.y.z) is at least $2.
version_at_least() {
  local IFS=.; local -a a=($1) b=($2)
  for i in 0 1 2; do
    (( ${a[i]:-0} > ${b[i]:-0} )) && return 0
    (( ${a[i]:-0} < ${b[i]:-0} )) && return 1
  done
  return 0
}

# The version a node binary reports (without the v), or nothing when it does not run.
node_version_of() { "$1" -e 'process.stdout.write(process.versions.node)' 2>/dev/null; }

# Fetches Node $1 into <cache>/node/$1 (one fetch at a time), and prints its binary's path.
node_fetch() {
  local version=$1 cache=${CONVOY_CACHE:-$HOME/.cache/convoy}
  local dest="$cache/node/$version" arch
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) node_fail "no Node $version for $(uname -m) on the npm registry: install Node $(node_minimum) or newer, or set CONVOY_NODE" ;; esac
  if [ ! -x "$dest/bin/node" ]; then
    mkdir -p "$cache/node" || node_fail "cannot create $cache/node"
    exec 8>"$cache/node/.fetch.lock"
    flock 8
    if [ ! -x "$dest/bin/node" ]; then
      command -v npm >/dev/null || node_fail "npm is missing, and convoy fetches its Node with it: install npm (Debian: apt-get install -y npm), or set CONVOY_NODE"
      echo "convoy: fetching Node $version from the npm registry (node-linux-$arch) into $dest" >&2
      local tmp; tmp=$(mktemp -d "$cache/node/.fetch.XXXXXX")
      # npm pack checks the tarball against the registry's integrity hash.
      if ! (cd "$tmp" && npm pack "node-linux-$arch@$version" --silent >pack.log 2>&1 && tar -xzf "node-linux-$arch-$version.tgz"); then
        tail -n 3 "$tmp/pack.log" | sed 's/^/  /' >&2
        rm -rf "$tmp"
        node_fail "could not fetch node-linux-$arch@$version from the npm registry (is it reachable?); or set CONVOY_NODE to a Node $(node_minimum) or newer"
      fi
      rm -rf "$dest" && mv "$tmp/package" "$dest" && rm -rf "$tmp"
    fi
    exec 8>&-
  fi
  echo "$dest/bin/node"
}

# Prints the node binary convoy runs on (the rule above).
node_choose() {
  local minimum want version system
  minimum=$(node_minimum)
  [ -n "$minimum" ] || node_fail "package.json's engines.node is not of the form \">=X.Y.Z\""
  if [ -n "${CONVOY_NODE:-}" ]; then
    version=$(node_version_of "$CONVOY_NODE")
    [ -n "$version" ] || node_fail "CONVOY_NODE=$CONVOY_NODE does not run; name a node binary, or unset it"
    version_at_least "$version" "$minimum" || node_fail "CONVOY_NODE=$CONVOY_NODE is Node $version; convoy needs $minimum or newer"
    echo "$CONVOY_NODE"
    return
  fi
  system=$(command -v node || true)
  if [ -n "$system" ]; then
    version=$(node_version_of "$system")
    if [ -n "$version" ] && version_at_least "$version" "$minimum"; then
      echo "$system"
      return
    fi
  fi
  want=$(tr -dc '0-9.' <"$convoy_root/.node-version" 2>/dev/null)
  [ -n "$want" ] || node_fail ".node-version is missing or empty: it names the Node convoy fetches"
  node_fetch "$want"
}

# Puts the chosen node first on PATH and its headers before native builds; exports
# CONVOY_NODE_BIN and its ABI, CONVOY_NODE_ABI. A choice already made by the convoy that started
# this one is kept (no node runs), unless CONVOY_NODE names another.
node_use() {
  if [ -z "${CONVOY_NODE_BIN:-}" ] || [ ! -x "$CONVOY_NODE_BIN" ] || { [ -n "${CONVOY_NODE:-}" ] && [ "$CONVOY_NODE" != "$CONVOY_NODE_BIN" ]; }; then
    CONVOY_NODE_BIN=$(node_choose) || exit 3
    CONVOY_NODE_ABI=
  fi
  [ -n "${CONVOY_NODE_ABI:-}" ] || CONVOY_NODE_ABI=$("$CONVOY_NODE_BIN" -p process.versions.modules) || node_fail "$CONVOY_NODE_BIN does not run"
  export CONVOY_NODE_BIN CONVOY_NODE_ABI
  local dir prefix
  dir=$(dirname "$CONVOY_NODE_BIN")
  prefix=$(dirname "$dir")
  case "$PATH" in "$dir":*) ;; *) export PATH="$dir:$PATH" ;; esac
  [ -f "$prefix/include/node/node.h" ] && export npm_config_nodedir="$prefix"
  return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  node_choose
fi
