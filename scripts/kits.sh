#!/usr/bin/env bash
# Installs the Debian packages the Go, C++ and Java starter kits build with (examples/*-bot), when
# we are root and they are missing; `make test` runs it through scripts/services.sh, as it does for
# Chromium. Everything comes from the Debian archive, so the kits then build offline
# (scripts/build-kit.sh).
#
#   bash scripts/kits.sh            # all three kits
#   bash scripts/kits.sh go java    # some of them
#
# Exit status 0 when every package is there afterwards; 1 (naming the missing ones) otherwise.
set -uo pipefail

# Beyond the packages named for each language, the kits need what they do not pull in themselves:
# the Go protobuf runtime the generated code imports (golang-google-protobuf-dev), and the jars
# libgrpc-java's classes load at run time (protobuf, netty, gson, perfmark, guava; netty-tcnative,
# OpenSSL, for TLS: Debian's netty has no JDK ALPN) plus the
# javax.annotation.Generated the generated Java stubs carry (geronimo-annotation, compile time).
declare -A PACKAGES=(
  [go]="golang-go golang-google-grpc-dev golang-google-protobuf-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler"
  [cpp]="g++ make pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"
  [java]="default-jdk-headless libgrpc-java protobuf-compiler-grpc-java-plugin protobuf-compiler libprotobuf-java
          libnetty-java libnetty-tcnative-java libnetty-tcnative-jni libgoogle-gson-java libperfmark-java libguava-java
          libgeronimo-annotation-1.3-spec-java"
)

kits=("$@")
[ ${#kits[@]} -gt 0 ] || kits=(go cpp java)
wanted=()
for kit in "${kits[@]}"; do
  [ -n "${PACKAGES[$kit]:-}" ] || { echo "kits: unknown kit '$kit' (go, cpp or java)" >&2; exit 64; }
  # shellcheck disable=SC2206
  wanted+=(${PACKAGES[$kit]})
done

missing() { # the wanted packages not installed, with one dpkg-query
  local installed
  installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${wanted[@]}" 2>/dev/null | awk '/ install ok installed$/ {print $1}')
  printf '%s\n' "${wanted[@]}" | sort -u | grep -vxF -f <(echo "$installed") || true
}

mapfile -t absent < <(missing)
[ ${#absent[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "kits: installing ${absent[*]} from Debian packages" >&2
  if [ -z "${BRAWL_APT_UPDATED:-}" ]; then apt-get update -qq >/dev/null; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${absent[@]}" >/dev/null
  mapfile -t absent < <(missing)
  [ ${#absent[@]} -eq 0 ] && exit 0
fi
echo "kits: missing Debian packages: ${absent[*]} (as root: apt-get install ${absent[*]})" >&2
exit 1
