#!/usr/bin/env bash
# Builds one starter kit (go, cpp or java) from the project's .proto files, offline, with the
# gRPC packages Debian ships (scripts/kits.sh installs them). Everything goes under
# $BRAWL_KITS_BUILD (default build/kits/) and only what changed is redone, so a second run is quick.
#
#   bash scripts/build-kit.sh go      # -> build/kits/go/hello-bot
#   bash scripts/build-kit.sh cpp     # -> build/kits/cpp/hello-bot
#   bash scripts/build-kit.sh java    # -> build/kits/java/hello-bot (a launcher for the jar)
#   bash scripts/build-kit.sh go mybot/   # your bot's sources in mybot/ -> build/kits/go/bots/mybot/mybot
#
# Your bot's folder holds, for go, a `package main` (importing "brawlkit/brawl" and
# "brawlkit/gen/botv1"); for cpp, .cc files (including "brawl_kit.h"); for java, .java files, one
# of them with the `main` method. Each hello bot takes --server HOST:PORT --token TOKEN
# [--games G,...] [--max-matches N] [--matches N] [--connect-timeout D] [--observations FILE]
# [--tls [--ca FILE]]; see examples/<kit>-bot/README.md. The last line printed is the executable.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KIT=${1:-}
BOT_DIR=""
if [ -n "${2:-}" ]; then
  [ -d "$2" ] || { echo "build-kit: $2 is not a folder" >&2; exit 1; }
  BOT_DIR=$(cd "$2" && pwd)
fi
BOT_NAME=$(basename "${BOT_DIR:-x}")
BUILD=${BRAWL_KITS_BUILD:-$ROOT/build/kits}
PROTO=$ROOT/proto
PROTOS=(brawl/bot/v1/bot.proto brawl/scrumbrawl/v1/scrumbrawl.proto brawl/superfantasybrawl/v1/superfantasybrawl.proto)
WKT=/usr/include # google/protobuf/{struct,duration,timestamp}.proto, from libprotobuf-dev

die() { echo "build-kit: $*" >&2; exit 1; }
need() { for c in "$@"; do command -v "$c" >/dev/null || die "$c is missing: run 'bash scripts/kits.sh' (as root) first"; done; }
# newer TARGET FILES...: true when TARGET is missing or older than one of FILES.
newer() { local t=$1; shift; [ -e "$t" ] || return 0; [ -n "$(find "$@" -type f -newer "$t" -print -quit 2>/dev/null)" ]; }
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
  local gobuild=(env GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOPROXY=off GOFLAGS= GOCACHE="$out/cache" go build)
  if newer "$out/hello-bot" "$src" "$out/.protos"; then
    "${gobuild[@]}" -o "$out/hello-bot" brawlkit/hello
  fi
  if [ -n "$BOT_DIR" ]; then
    mkdir -p "$gopath/src/brawlkit/bots" "$out/bots/$BOT_NAME"
    ln -sfn "$BOT_DIR" "$gopath/src/brawlkit/bots/$BOT_NAME"
    if newer "$out/bots/$BOT_NAME/$BOT_NAME" "$BOT_DIR" "$src" "$out/.protos"; then
      "${gobuild[@]}" -o "$out/bots/$BOT_NAME/$BOT_NAME" "brawlkit/bots/$BOT_NAME"
    fi
    echo "$out/bots/$BOT_NAME/$BOT_NAME"
  else
    echo "$out/hello-bot"
  fi
}

build_cpp() {
  need make g++ pkg-config protoc grpc_cpp_plugin
  local out=$BUILD/cpp
  # make would find nothing to do, but only after pkg-config walked abseil's .pc files: skip it.
  if newer "$out/hello-bot" "$ROOT/examples/cpp-bot" $(proto_files); then
    pkg-config --exists grpc++ protobuf || die "libgrpc++-dev is missing: run 'bash scripts/kits.sh' (as root) first"
    make -s -C "$ROOT/examples/cpp-bot" -j "$(nproc 2>/dev/null || echo 2)" BUILD="$out" PROTO="$PROTO" "$out/hello-bot" >&2
    touch "$out/hello-bot" # up to date even when make found nothing to relink (a README changed)
  fi
  if [ -n "$BOT_DIR" ]; then
    local exe=$out/bots/$BOT_NAME/$BOT_NAME
    if newer "$exe" "$BOT_DIR" "$ROOT/examples/cpp-bot" $(proto_files); then
      make -s -C "$ROOT/examples/cpp-bot" -j "$(nproc 2>/dev/null || echo 2)" BUILD="$out" PROTO="$PROTO" \
        BOT_DIR="$BOT_DIR" BOT_NAME="$BOT_NAME" "$exe" >&2
      touch "$exe"
    fi
    echo "$exe"
  else
    echo "$out/hello-bot"
  fi
}

# Debian's jars the Java kit compiles and runs with (libgrpc-java, libprotobuf-java, libnetty-java,
# libgoogle-gson-java, libperfmark-java, libguava-java; netty-tcnative from libnetty-tcnative-java
# and -jni, OpenSSL for TLS, as Debian's netty has no JDK ALPN; javax.annotation.Generated, which the
# generated stubs carry, from libgeronimo-annotation-1.3-spec-java at compile time only).
JAVA_JARS=(grpc-api grpc-context grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub
  protobuf protobuf-util gson guava perfmark-api
  netty-buffer netty-codec netty-codec-http netty-codec-http2 netty-codec-socks netty-common netty-handler
  netty-handler-proxy netty-resolver netty-transport netty-transport-native-unix-common netty-tcnative)

build_java() {
  need javac jar java protoc grpc_java_plugin
  local out=$BUILD/java src=$ROOT/examples/java-bot/src cp="" j
  for j in "${JAVA_JARS[@]}"; do
    [ -f "/usr/share/java/$j.jar" ] || die "/usr/share/java/$j.jar is missing: run 'bash scripts/kits.sh' (as root) first"
    cp="$cp${cp:+:}/usr/share/java/$j.jar"
  done
  [ -f /usr/share/java/geronimo-annotation-1.3-spec.jar ] || die "libgeronimo-annotation-1.3-spec-java is missing: run 'bash scripts/kits.sh' (as root) first"
  mkdir -p "$out"
  if newer "$out/.protos" $(proto_files); then
    rm -rf "$out/gen" && mkdir -p "$out/gen"
    protoc -I "$PROTO" -I "$WKT" --java_out="$out/gen" --grpc-java_out="$out/gen" \
      --plugin=protoc-gen-grpc-java="$(command -v grpc_java_plugin)" "${PROTOS[@]}"
    touch "$out/.protos"
  fi
  if newer "$out/hello-bot.jar" "$src" "$src/../hello" "$out/.protos"; then
    rm -rf "$out/classes"
    find "$out/gen" "$src" "$src/../hello" -name '*.java' > "$out/sources.txt"
    javac -nowarn -encoding UTF-8 -d "$out/classes" -cp "$cp:/usr/share/java/geronimo-annotation-1.3-spec.jar" "@$out/sources.txt"
    jar --create --file "$out/hello-bot.jar" -C "$out/classes" .
  fi
  # A launcher, so every kit's hello bot runs the same way.
  # netty looks for libnetty_tcnative.so and checks the name it was loaded under, which Debian's
  # libnetty-tcnative.so fails (a symlink resolves to it): a copy under the name netty expects.
  local tcnative
  tcnative=$(ls /usr/lib/*/jni/libnetty-tcnative.so 2>/dev/null | head -n1)
  [ -n "$tcnative" ] || die "libnetty-tcnative-jni is missing: run 'bash scripts/kits.sh' (as root) first"
  mkdir -p "$out/jni"
  cp -u "$tcnative" "$out/jni/libnetty_tcnative.so"
  launcher() { # FILE MAIN-CLASS CLASSPATH
    printf '#!/bin/sh\nexec java -Djava.library.path=%s ${JAVA_OPTS:-} -cp "%s" %s "$@"\n' "$out/jni" "$3" "$2" > "$1"
    chmod +x "$1"
  }
  launcher "$out/hello-bot" HelloBot "$out/hello-bot.jar:$cp"
  if [ -z "$BOT_DIR" ]; then
    echo "$out/hello-bot"
    return
  fi
  local dir=$out/bots/$BOT_NAME main cls pkg
  main=$(grep -rl --include='*.java' 'static void main' "$BOT_DIR" | head -n1)
  [ -n "$main" ] || die "no .java file in $BOT_DIR has a main method"
  cls=$(basename "$main" .java)
  pkg=$(sed -n 's/^package \([A-Za-z0-9_.]*\);.*/\1/p' "$main" | head -n1)
  if newer "$dir/$BOT_NAME.jar" "$BOT_DIR" "$out/hello-bot.jar"; then
    rm -rf "$dir/classes" && mkdir -p "$dir"
    find "$BOT_DIR" -name '*.java' > "$dir/sources.txt"
    javac -nowarn -encoding UTF-8 -d "$dir/classes" -cp "$out/hello-bot.jar:$cp" "@$dir/sources.txt"
    jar --create --file "$dir/$BOT_NAME.jar" -C "$dir/classes" .
  fi
  launcher "$dir/$BOT_NAME" "${pkg:+$pkg.}$cls" "$dir/$BOT_NAME.jar:$out/hello-bot.jar:$cp"
  echo "$dir/$BOT_NAME"
}

case "$KIT" in
  go) build_go ;;
  cpp) build_cpp ;;
  java) build_java ;;
  *) die "usage: bash scripts/build-kit.sh go|cpp|java [BOT_FOLDER]" ;;
esac
