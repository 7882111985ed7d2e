#!/usr/bin/env bash
# Builds one starter kit (go, cpp or java) from the project's .proto files, offline, with the
# gRPC packages Debian ships (scripts/kits.sh installs them). Everything goes under
# $BRAWL_KITS_BUILD (default build/kits/) and only what changed is redone, so a second run is quick.
#
#   bash scripts/build-kit.sh go      # -> build/kits/go/hello-bot
#   bash scripts/build-kit.sh cpp     # -> build/kits/cpp/hello-bot
#   bash scripts/build-kit.sh java    # -> build/kits/java/hello-bot (a launcher for the jar)
#
# Each hello-bot takes --server HOST:PORT --token TOKEN [--games G,...] [--max-matches N]
# [--matches N] [--connect-timeout D] [--observations FILE]; see examples/<kit>-bot/README.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KIT=${1:-}
BUILD=${BRAWL_KITS_BUILD:-$ROOT/build/kits}
PROTO=$ROOT/proto
PROTOS=(brawl/bot/v1/bot.proto brawl/scrumbrawl/v1/scrumbrawl.proto brawl/superfantasybrawl/v1/superfantasybrawl.proto)
WKT=/usr/include # google/protobuf/{struct,duration,timestamp}.proto, from libprotobuf-dev

die() { echo "build-kit: $*" >&2; exit 1; }
need() { for c in "$@"; do command -v "$c" >/dev/null || die "$c is missing: run 'bash scripts/kits.sh' (as root) first"; done; }
# newer TARGET FILES...: true when TARGET is missing or older than one of FILES.
newer() { local t=$1; shift; [ -e "$t" ] || return 0; [ -n "$(find "$@" -newer "$t" -print -quit 2>/dev/null)" ]; }
proto_files() { for p in "${PROTOS[@]}"; do echo "$PROTO/$p"; done; }

build_go() {
  need go protoc protoc-gen-go protoc-gen-go-grpc
  local out=$BUILD/go src=$ROOT/examples/go-bot
  local gopath=$out/gopath
  mkdir -p "$gopath/src/brawlkit"
  if newer "$out/.protos" $(proto_files); then
    rm -rf "$gopath/src/brawlkit/gen"
    local m=(--go_opt=Mbrawl/bot/v1/bot.proto=brawlkit/gen/botv1
      --go_opt=Mbrawl/scrumbrawl/v1/scrumbrawl.proto=brawlkit/gen/scrumbrawlv1
      --go_opt=Mbrawl/superfantasybrawl/v1/superfantasybrawl.proto=brawlkit/gen/superfantasybrawlv1)
    protoc -I "$PROTO" -I "$WKT" --go_out="$gopath/src" "${m[@]}" \
      --go-grpc_out="$gopath/src" "${m[@]//--go_opt/--go-grpc_opt}" "${PROTOS[@]}"
    touch "$out/.protos"
  fi
  # The kit's own packages, seen through GOPATH (Debian's Go libraries are in /usr/share/gocode).
  ln -sfn "$src/brawl" "$gopath/src/brawlkit/brawl"
  ln -sfn "$src/hello" "$gopath/src/brawlkit/hello"
  GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOPROXY=off GOFLAGS= GOCACHE="$out/cache" \
    go build -o "$out/hello-bot" brawlkit/hello
  echo "$out/hello-bot"
}

build_cpp() {
  need make g++ pkg-config protoc grpc_cpp_plugin
  pkg-config --exists grpc++ protobuf || die "libgrpc++-dev is missing: run 'bash scripts/kits.sh' (as root) first"
  local out=$BUILD/cpp
  make -s -C "$ROOT/examples/cpp-bot" -j "$(nproc 2>/dev/null || echo 2)" BUILD="$out" PROTO="$PROTO" "$out/hello-bot" >&2
  echo "$out/hello-bot"
}

case "$KIT" in
  go) build_go ;;
  cpp) build_cpp ;;
  java) build_java ;;
  *) die "usage: bash scripts/build-kit.sh go|cpp|java" ;;
esac
