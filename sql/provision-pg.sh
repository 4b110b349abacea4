#!/usr/bin/env bash
# Make the machine's own PostgreSQL usable for this project's tests.
#
#   bash sql/provision-pg.sh        (normally via `make pg`)
#
# 1. starts the local cluster if it is not running and waits for it;
# 2. lets 127.0.0.1 connect for streaming replication (pg_hba, WAL senders),
#    which the replica tests' pg_basebackup needs;
# 3. creates the extensions the project uses (vector, pg_trgm, cube,
#    earthdistance, unaccent) in the `test` and `postgres` databases;
# 4. if pgvector is not installed, builds it from the Debian trixie source
#    package against the running server's major version and installs it.
#
# Idempotent: when everything is already in place it only runs a few psql calls.
# Debian/Ubuntu with apt only; the provisioning path must run as root.
#
# Environment overrides (all optional):
#   PGHOST (127.0.0.1) PGPORT (5432) PGUSER (postgres)
#   PGVECTOR_SUITE   Debian suite to take the pgvector source from (trixie)
#   PGVECTOR_MIRROR  Debian mirror URL (default: the one in apt's own sources)
#   PGVECTOR_KEYRING keyring for that suite (/usr/share/keyrings/debian-archive-keyring.gpg)

set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}"
export PGPORT="${PGPORT:-5432}"
export PGUSER="${PGUSER:-postgres}"
export DEBIAN_FRONTEND=noninteractive

SUITE="${PGVECTOR_SUITE:-trixie}"
KEYRING="${PGVECTOR_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"
DATABASES=(test postgres)
CONTRIB_EXTS=(pg_trgm cube earthdistance unaccent)

log() { echo "make pg: $*"; }
die() { echo "make pg: ERROR: $*" >&2; exit 1; }
need_root() {
  [ "$(id -u)" -eq 0 ] || die "$1 needs root; re-run as root (e.g. sudo bash sql/provision-pg.sh)"
}

psql_q() { # psql_q DB SQL -> unaligned, tuples only, stops on error, no NOTICEs
  PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -At -d "$1" -c "$2"
}

TMP=""
cleanup() { if [ -n "$TMP" ]; then rm -rf "$TMP"; fi; }
trap cleanup EXIT
trap 'echo "make pg: ERROR: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

# --------------------------------------------------------------------------
# 1. cluster up
# --------------------------------------------------------------------------
command -v pg_isready >/dev/null && command -v psql >/dev/null \
  || die "pg_isready/psql not found; install the PostgreSQL client (postgresql-client)"

if ! pg_isready -q -h "$PGHOST" -p "$PGPORT"; then
  need_root "starting the PostgreSQL cluster"
  [ -d /etc/postgresql ] || die "no /etc/postgresql: no Debian PostgreSQL cluster on this machine"
  ver="$(ls /etc/postgresql | sort -V | tail -n 1)"
  [ -n "$ver" ] || die "/etc/postgresql is empty: no cluster to start"
  log "starting PostgreSQL $ver/main"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start \
    || die "pg_ctlcluster $ver main start failed (see /var/log/postgresql/postgresql-$ver-main.log)"
  for _ in $(seq 1 60); do
    pg_isready -q -h "$PGHOST" -p "$PGPORT" && break
    sleep 0.5
  done
  pg_isready -q -h "$PGHOST" -p "$PGPORT" || die "PostgreSQL did not come up on $PGHOST:$PGPORT within 30 s"
fi

psql_q postgres 'select 1' >/dev/null \
  || die "cannot connect as $PGUSER to $PGHOST:$PGPORT (database postgres)"
[ "$(psql_q postgres "select count(*) from pg_database where datname='test'")" = 1 ] || {
  log "creating database test"
  psql_q postgres 'create database test' >/dev/null
}

# --------------------------------------------------------------------------
# 2. replication: what a streaming replica of this server needs (the replica
#    tests build one with pg_basebackup over 127.0.0.1, test/helpers/replica.ts):
#    wal_level replica or logical (replica is the default), WAL senders, and a
#    pg_hba entry letting 127.0.0.1 connect for replication (an "all" entry does
#    not cover replication connections).
# --------------------------------------------------------------------------
replication_ok() {
  [ "$(psql_q postgres "select current_setting('wal_level') <> 'minimal' and current_setting('max_wal_senders')::int >= 4")" = t ] &&
  # the first entry that takes a replication connection from 127.0.0.1 decides (Debian's default one asks for a password)
  [ "$(psql_q postgres "select coalesce((select auth_method = 'trust' from pg_hba_file_rules where error is null and type in ('host', 'hostnossl') and 'replication' = any(database) and case when address in ('all', 'samehost') then true when address ~ '^[0-9.]+\$' and netmask is not null then ('127.0.0.1'::inet & netmask::inet) = (address::inet & netmask::inet) else false end order by line_number limit 1), false)")" = t ]
}
restart_cluster() {
  local ver
  ver="$(psql_q postgres 'show server_version_num')"; ver=$((ver / 10000))
  log "restarting PostgreSQL $ver/main"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main restart || die "pg_ctlcluster $ver main restart failed"
  for _ in $(seq 1 60); do pg_isready -q -h "$PGHOST" -p "$PGPORT" && return 0; sleep 0.5; done
  die "PostgreSQL did not come back on $PGHOST:$PGPORT within 30 s"
}
if ! replication_ok; then
  need_root "preparing replication"
  restart=0
  if [ "$(psql_q postgres "show wal_level")" = minimal ]; then
    log "wal_level replica"; psql_q postgres "alter system set wal_level = replica" >/dev/null; restart=1
  fi
  if [ "$(psql_q postgres "show max_wal_senders")" -lt 4 ]; then
    log "max_wal_senders 10"; psql_q postgres "alter system set max_wal_senders = 10" >/dev/null; restart=1
  fi
  hba="$(psql_q postgres 'show hba_file')"
  if ! replication_ok; then
    # before every other entry: the first one that matches a connection decides
    log "pg_hba: replication connections from 127.0.0.1 ($hba)"
    awk 'BEGIN { entry = "# make pg: streaming replicas of this server on this machine (test/helpers/replica.ts)\nhost replication all 127.0.0.1/32 trust" }
         !done && /^[[:space:]]*(local|host)/ { print entry; done = 1 }
         { print }
         END { if (!done) print entry }' "$hba" > "$hba.make-pg"
    cat "$hba.make-pg" > "$hba" && rm -f "$hba.make-pg"
  fi
  if [ "$restart" = 1 ]; then restart_cluster; else psql_q postgres 'select pg_reload_conf()' >/dev/null; fi
  for _ in $(seq 1 20); do replication_ok && break; sleep 0.25; done
  replication_ok || die "replication is still not allowed from 127.0.0.1 (see $hba)"
fi

# --------------------------------------------------------------------------
# 3. extensions; fast path when everything is already there
# --------------------------------------------------------------------------
create_exts() { # create_exts DB EXT... (quiet on failure; the caller reports)
  local db="$1"; shift
  local sql="" e
  for e in "$@"; do sql+="create extension if not exists $e cascade; "; done
  psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "set client_min_messages=warning; $sql" >/dev/null 2>&1
}

all_ok() {
  local db
  for db in "${DATABASES[@]}"; do
    create_exts "$db" vector "${CONTRIB_EXTS[@]}" || return 1
  done
}

report() {
  local v
  v="$(psql_q test "select extversion from pg_extension where extname='vector'")"
  log "PostgreSQL $(psql_q test 'show server_version') on $PGHOST:$PGPORT; extensions ready in ${DATABASES[*]}"
  log "pgvector version: $v"
}

if all_ok; then
  report
  exit 0
fi

# --------------------------------------------------------------------------
# 4. provision
# --------------------------------------------------------------------------
need_root "installing packages / pgvector"
command -v apt-get >/dev/null || die "apt-get not found: this script only knows Debian/Ubuntu"

num="$(psql_q postgres 'show server_version_num')"
MAJOR=$((num / 10000))
PG_CONFIG="/usr/lib/postgresql/$MAJOR/bin/pg_config"
log "server is PostgreSQL $(psql_q postgres 'show server_version') (major $MAJOR)"

apt_updated=0
apt_install() { # install packages, running apt-get update first if that is needed
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  log "apt-get install ${missing[*]}"
  if [ "$apt_updated" = 0 ] && ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
    log "apt-get update"; apt-get update -qq || die "apt-get update failed"; apt_updated=1
  fi
  if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    [ "$apt_updated" = 0 ] || die "apt-get install ${missing[*]} failed"
    log "install failed; apt-get update and retry"
    apt-get update -qq || die "apt-get update failed"; apt_updated=1
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      || die "apt-get install ${missing[*]} failed"
  fi
}

# contrib extensions (pg_trgm, cube, earthdistance, unaccent) ship with the
# server package (postgresql-<major>) on current Debian; older layouts had a
# separate postgresql-contrib-<major>.
missing_contrib() {
  local e out=()
  for e in "${CONTRIB_EXTS[@]}"; do
    [ "$(psql_q postgres "select count(*) from pg_available_extensions where name='$e'")" = 1 ] || out+=("$e")
  done
  echo "${out[*]}"
}
mc="$(missing_contrib)"
if [ -n "$mc" ]; then
  log "contrib extensions not available: $mc; installing postgresql-contrib"
  if apt-cache show "postgresql-contrib-$MAJOR" >/dev/null 2>&1; then
    apt_install "postgresql-contrib-$MAJOR"
  else
    apt_install postgresql-contrib
  fi
  mc="$(missing_contrib)"
  [ -z "$mc" ] || die "contrib extensions still missing after install: $mc"
fi

vector_available() {
  [ "$(psql_q postgres "select count(*) from pg_available_extensions where name='vector'")" = 1 ]
}

if ! vector_available; then
  apt_install "postgresql-server-dev-$MAJOR" build-essential dpkg-dev
  [ -x "$PG_CONFIG" ] || die "$PG_CONFIG missing after installing postgresql-server-dev-$MAJOR"

  # Mirror: reuse the Debian mirror host apt already uses (active lines only).
  mirror="${PGVECTOR_MIRROR:-}"
  if [ -z "$mirror" ]; then
    mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
      | sed -e 's/#.*//' \
      | grep -E '^[[:space:]]*(deb(-src)?[[:space:]]|URIs:)' \
      | grep -oE '(https?|ftp)://[^][[:space:]]+' \
      | sed -e 's:/*$::' \
      | grep -E '/debian$' | head -n 1 || true)"
    mirror="${mirror:-http://deb.debian.org/debian}"
  fi
  [ -r "$KEYRING" ] || die "keyring $KEYRING not found (package debian-archive-keyring)"
  log "fetching pgvector source from $mirror $SUITE (deb-src, private apt lists)"

  TMP="$(mktemp -d /tmp/provision-pg.XXXXXX)"
  chmod 755 "$TMP"
  mkdir -p "$TMP/sources.list.d" "$TMP/lists/partial" "$TMP/cache/archives/partial" "$TMP/src"
  echo "deb-src [signed-by=$KEYRING] $mirror $SUITE main" > "$TMP/sources.list"
  # apt downloads as the unprivileged _apt user; let it write the source dir.
  if id _apt >/dev/null 2>&1; then chown _apt "$TMP/src" "$TMP/lists/partial" 2>/dev/null || true; fi
  APT_PRIVATE=(
    -o "Dir::Etc::sourcelist=$TMP/sources.list"
    -o "Dir::Etc::sourceparts=$TMP/sources.list.d"
    -o "Dir::State::Lists=$TMP/lists"
    -o "Dir::Cache=$TMP/cache"
    -o "APT::Get::List-Cleanup=0"
  )
  apt-get "${APT_PRIVATE[@]}" -qq update \
    || die "apt-get update of the $SUITE deb-src list failed ($mirror)"
  (cd "$TMP/src" && apt-get "${APT_PRIVATE[@]}" -qq source pgvector >/dev/null) \
    || die "apt-get source pgvector from $SUITE failed"
  srcdir="$(find "$TMP/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
  [ -n "$srcdir" ] && [ -f "$srcdir/Makefile" ] || die "pgvector source not unpacked in $TMP/src"
  log "building $(basename "$srcdir") against $PG_CONFIG"
  make -C "$srcdir" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >"$TMP/build.log" 2>&1 \
    || { tail -n 30 "$TMP/build.log" >&2; die "pgvector build failed"; }
  make -C "$srcdir" -s install PG_CONFIG="$PG_CONFIG" >>"$TMP/build.log" 2>&1 \
    || { tail -n 30 "$TMP/build.log" >&2; die "pgvector install failed"; }
  vector_available || die "pgvector installed into $($PG_CONFIG --sharedir) but the server does not list it"
  log "pgvector installed into $($PG_CONFIG --pkglibdir)"
fi

for db in "${DATABASES[@]}"; do
  log "creating extensions in database $db"
  create_exts "$db" vector "${CONTRIB_EXTS[@]}" || {
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "create extension if not exists vector; $(printf 'create extension if not exists %s cascade; ' "${CONTRIB_EXTS[@]}")" >&2 || true
    die "could not create extensions in database $db"
  }
done

# sanity check: a fresh database can use vector too
probe="provision_pg_probe_$$"
psql_q postgres "drop database if exists $probe" >/dev/null
psql_q postgres "create database $probe" >/dev/null
if ! psql_q "$probe" "create extension vector; select '[1,2,3]'::vector <-> '[1,2,4]'::vector" >/dev/null; then
  psql_q postgres "drop database if exists $probe" >/dev/null || true
  die "create extension vector fails in a freshly created database"
fi
psql_q postgres "drop database $probe" >/dev/null
log "checked: create extension vector works in a fresh database"

report
