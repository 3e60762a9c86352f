#!/bin/sh
# test-on-node.sh <major> [run-tests arguments...]
#
# Runs the test suite of this checkout on another Node.js major version (e.g. 22 or 24) without
# touching the Node installed on the machine. Only the npm registry is needed:
#   1. the newest node-<os>-<arch>@<major> package from npm is unpacked into $NODE_CACHE
#      (default ~/.cache/conductor-node); it holds the node binary and the C/C++ headers;
#   2. `npm ci` installs this checkout's node_modules with that node first on PATH. better-sqlite3
#      is the only native module: where no prebuilt binary can be downloaded for that Node ABI,
#      it is compiled from source against the package's headers (npm_config_nodedir), which needs
#      a C/C++ toolchain (gcc/g++ or clang, make) and python3 — and no download from nodejs.org;
#   3. the project is built and scripts/run-tests.mjs runs with the given arguments (none: all).
#
# Run it in a checkout whose node_modules may be replaced (a fresh clone or a separate
# `git worktree`): step 2 deletes ./node_modules and installs it for the chosen Node.
set -eu

if [ $# -lt 1 ]; then
  echo "usage: $0 <node major, e.g. 24> [run-tests arguments...]" >&2
  exit 2
fi
major=$1
shift
case $major in
  '' | *[!0-9]*) echo "$0: the Node major version must be a number, got '$major'" >&2; exit 2 ;;
esac

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "$0: no node package from npm for $(uname -s); install Node $major yourself" >&2; exit 2 ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "$0: no node package from npm for architecture $(uname -m)" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
pkg=node-$os-$arch
# The newest $major.x.y that npm has (`npm view` lists matches unordered).
version=$(npm view "$pkg@$major" version --json | node -e '
  const v = [].concat(JSON.parse(require("node:fs").readFileSync(0, "utf8")));
  const key = (s) => s.split(".").map(Number);
  v.sort((a, b) => { const x = key(a), y = key(b); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
  console.log(v.at(-1) ?? "");
')
case $version in
  "$major".*) ;;
  *) echo "$0: npm has no $pkg@$major (got '$version')" >&2; exit 1 ;;
esac

# As root the local provider runs servers (the S3 gateway and the port forwarder are node
# programs) as unprivileged users, who must be able to execute this node: not under /root.
if [ -z "${NODE_CACHE:-}" ] && [ "$(id -u)" -eq 0 ]; then
  cache=/var/cache/conductor-node
else
  cache=${NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/conductor-node}
fi
# unpack <version>: the node package of that version, unpacked once into the cache; prints its directory.
unpack() {
  local dir=$cache/$pkg-$1
  if [ ! -x "$dir/bin/node" ]; then
    mkdir -p "$cache"
    chmod 755 "$cache"
    local tmp
    tmp=$(mktemp -d "$cache/.unpack.XXXXXX")
    (cd "$tmp" && npm pack --silent "$pkg@$1" >/dev/null && tar xzf "$pkg-$1.tgz")
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
    chmod 755 "$dir"
    rm -rf "$tmp"
  fi
  echo "$dir"
}
nodedir=$(unpack "$version")

# The headers native modules are compiled against. From Node 24.19, node::ObjectWrap's
# destructor removes an environment cleanup hook, and better-sqlite3 12.x compiled against
# those headers aborts when V8 collects a statement (`Assertion failed: (env) != nullptr`;
# nodejs/node#65446, open). 24.18.0's headers build a module for the same ABI without it.
headers_version=${NODE_HEADERS_VERSION:-}
if [ -z "$headers_version" ] && [ "$major" = 24 ]; then headers_version=24.18.0; fi
headersdir=$nodedir
if [ -n "$headers_version" ] && [ "$headers_version" != "$version" ]; then headersdir=$(unpack "$headers_version"); fi

PATH=$nodedir/bin:$PATH
export PATH
# node-gyp reads the headers from here instead of downloading them from nodejs.org.
npm_config_nodedir=$headersdir
export npm_config_nodedir

echo "== Node $(node --version) from $nodedir (headers: $headersdir), npm $(npm --version)"
cd "$repo"
rm -rf node_modules
npm ci --no-audit --no-fund
node -e "new (require('better-sqlite3'))(':memory:').close(); console.log('== better-sqlite3 loads on Node', process.version)"
npm run build
node scripts/run-tests.mjs "$@"
