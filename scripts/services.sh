#!/usr/bin/env bash
# Finds or starts the services the tests need, and exports their URLs.
#
# Sourced by scripts/test.sh. For each service: use the URL the environment already gives
# (DATABASE_URL, REDIS_URL); else the standard local port if something answers there; else start a
# throwaway server from local binaries in a temporary folder (installing the Debian package first
# when it is missing and we are root). Throwaway servers are stopped by brawl_services_stop.

BRAWL_TMP=${BRAWL_TMP:-$(mktemp -d /tmp/brawl-services.XXXXXX)}
BRAWL_STARTED_PG=""
BRAWL_STARTED_REDIS=""

_port_open() { # host port
  python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.socket(); s.settimeout(0.5)
try:
    s.connect((sys.argv[1], int(sys.argv[2]))); print("open")
except OSError:
    pass
PY
}

_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

_apt_install() { # packages...
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "services: installing $* from Debian packages" >&2
    if [ -z "${BRAWL_APT_UPDATED:-}" ]; then apt-get update -qq >/dev/null && BRAWL_APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "services: $* missing and cannot install (not root or no apt-get)" >&2
    return 1
  fi
}

brawl_services_start() {
  # PostgreSQL
  if [ -z "${DATABASE_URL:-}" ]; then
    if [ -n "$(_port_open 127.0.0.1 5432)" ]; then
      export DATABASE_URL="postgresql://postgres@127.0.0.1:5432/postgres"
    else
      local bindir
      bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
      if [ -z "$bindir" ]; then
        _apt_install postgresql || return 1
        bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
      fi
      local port datadir runas=()
      port=$(_free_port); datadir="$BRAWL_TMP/pg"
      mkdir -p "$datadir"
      if [ "$(id -u)" = 0 ]; then chown postgres "$BRAWL_TMP" "$datadir" 2>/dev/null || chmod 777 "$BRAWL_TMP" "$datadir"; runas=(runuser -u postgres --); fi
      "${runas[@]}" "$bindir/initdb" -D "$datadir" -U postgres --auth=trust >/dev/null
      "${runas[@]}" "$bindir/pg_ctl" -D "$datadir" -o "-p $port -k $datadir -c listen_addresses=127.0.0.1" -l "$datadir/log" -w start >/dev/null
      BRAWL_STARTED_PG="$bindir/pg_ctl -D $datadir"
      export DATABASE_URL="postgresql://postgres@127.0.0.1:$port/postgres"
      echo "services: started a throwaway PostgreSQL on port $port" >&2
    fi
  fi
  # Redis
  if [ -z "${REDIS_URL:-}" ]; then
    if [ -n "$(_port_open 127.0.0.1 6379)" ]; then
      export REDIS_URL="redis://127.0.0.1:6379/0"
    else
      command -v redis-server >/dev/null || _apt_install redis-server || return 1
      local port
      port=$(_free_port)
      redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
        --pidfile "$BRAWL_TMP/redis.pid" --logfile "$BRAWL_TMP/redis.log" >/dev/null
      BRAWL_STARTED_REDIS="$BRAWL_TMP/redis.pid"
      export REDIS_URL="redis://127.0.0.1:$port/0"
      echo "services: started a throwaway Redis on port $port" >&2
    fi
  fi
  # A browser for the page tests, and Node for the non-Python example bot.
  [ -x /usr/bin/chromium ] || _apt_install chromium || true
  command -v node >/dev/null && command -v npm >/dev/null || _apt_install nodejs npm || true
  # The Go, C++ and Java starter kits' toolchains and gRPC libraries (tests/kits).
  bash "$(dirname "${BASH_SOURCE[0]}")/kits.sh" || true
  # bubblewrap sandboxes hosted bots (workers/hosting, tests/hosting).
  command -v bwrap >/dev/null || _apt_install bubblewrap || true
  export BRAWL_CHROMIUM=${BRAWL_CHROMIUM:-/usr/bin/chromium}
}

brawl_services_stop() {
  if [ -n "$BRAWL_STARTED_PG" ]; then
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- $BRAWL_STARTED_PG -m fast stop >/dev/null 2>&1; else $BRAWL_STARTED_PG -m fast stop >/dev/null 2>&1; fi
  fi
  if [ -n "$BRAWL_STARTED_REDIS" ] && [ -f "$BRAWL_STARTED_REDIS" ]; then
    kill "$(cat "$BRAWL_STARTED_REDIS")" 2>/dev/null
  fi
  rm -rf "$BRAWL_TMP" 2>/dev/null || true
}
