#!/usr/bin/env bash
# The README's "Deploy on one server", walked literally on this machine:
#
#   sudo deploy/walk/walk.sh          # or `go test ./deploy -run TestDeployWalk`
#
# It takes the shell block of that README section as written and runs it as
# root in a private mount, network and PID namespace (unshare), so nothing
# it installs (the binary, /etc/camellos, the camellos and caddy users,
# Debian's caddy package, the units) outlives it: /etc, /usr and /var/lib
# are overlays over this machine's, the network has only its own loopback.
# Around the block, the walk plays what a real machine would provide:
#   - the release: deploy/release.sh builds this checkout for this machine's
#     architecture (binary + SHA256SUMS), placed in a copy of the checkout;
#     litestream v0.5.x next to it (the tool cache .ci/run fills);
#   - the operator's editor: walk/editor fills in the environment file;
#   - S3: versitygw (posix backend) on 127.0.0.1:9000 with the two buckets;
#   - systemd: walk/systemctl starts units from their files (see there what
#     it models); Caddy's package comes from apt (fetched before the
#     namespace, installed inside it);
#   - DNS and Let's Encrypt: the domain is `localhost`, for which Caddy
#     issues certificates from its own local CA (the ACME exchange is the
#     one step not walked).
# Then it checks, through Caddy on https://localhost: health, the redirect
# from http, an admin sign-in, separate sign-in quotas for two clients
# behind the proxy and a forged X-Forwarded-For ignored, the metrics with
# their bearer, live events unbuffered, Litestream's replica in S3 and a
# scheduled backup in S3, and the service's JSON log lines.
# Every wait is bounded; the exit status is 0 only when everything held.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

# Each line says the seconds since the walk began: where its time goes.
export WALK_T0="${WALK_T0:-$(date +%s)}"
say() { printf 'walk: [%3d s] %s\n' "$(( $(date +%s) - WALK_T0 ))" "$*" >&2; }
die() { say "FALLO: $*"; exit 1; }

if [ "${1:-}" != "--inside" ]; then
  [ "$(id -u)" = 0 ] || die "hace falta root (usa un contenedor o una máquina desechable)"
  for tool in unshare setpriv runuser curl apt-get sha256sum; do
    command -v "$tool" >/dev/null || die "falta $tool"
  done
  unshare -m -n -p -f --mount-proc true 2>/dev/null || die "unshare no puede crear espacios de nombres aquí"
  find_tool() { # name env-var
    local v="${!2:-}" c="${CAMELLOS_BIN_CACHE:-$HOME/.cache/camellos-bin}/$1"
    if [ -n "$v" ] && [ -x "$v" ]; then echo "$v"; elif [ -x "$c" ]; then echo "$c";
    elif command -v "$1" >/dev/null; then command -v "$1"; else return 1; fi
  }
  LITESTREAM="$(find_tool litestream CAMELLOS_LITESTREAM)" || die "falta litestream (ver .ci/run)"
  VERSITYGW="$(find_tool versitygw CAMELLOS_VERSITYGW)" || die "falta versitygw (ver .ci/run)"
  WORK="${WALK_DIR:-$(mktemp -d /tmp/camellos-walk.XXXXXX)}"
  mkdir -p "$WORK"/{state,s3/camellos-backups,s3/camellos-replica,release}
  ARCH="$(dpkg --print-architecture)"
  VERSION="v0.0.0-walk"
  # Caddy's package is fetched while the release builds (apt waits on the
  # disk and the network, the build on the CPU): the walk's two slowest
  # preparations overlap.
  say "fetching Debian's caddy package, and the release build ($ARCH) into $WORK/release"
  (
    if ! apt-get install --download-only -y -qq caddy >/dev/null 2>&1; then
      apt-get update -qq >/dev/null && apt-get install --download-only -y -qq caddy >/dev/null
    fi
  ) &
  fetch=$!
  VERSION="$VERSION" TARGETS="linux/$ARCH" OUT="$WORK/release" "$REPO/deploy/release.sh" >/dev/null \
    || { wait "$fetch" || true; die "la compilación de la versión falló"; }
  say "release built"
  wait "$fetch" || die "apt no pudo traer caddy"
  say "caddy's package fetched"
  # The operator's directory: the release tag's files, the downloaded binary
  # with its SHA256SUMS, and a litestream binary.
  CHECKOUT="$WORK/checkout"
  mkdir -p "$CHECKOUT"
  cp -r "$REPO/deploy" "$REPO/README.md" "$CHECKOUT/"
  cp "$WORK/release/"* "$CHECKOUT/"
  install -m 0755 "$LITESTREAM" "$CHECKOUT/litestream"
  export WALK_WORK="$WORK" WALK_VERSION="$VERSION" WALK_ARCH="$ARCH" WALK_VERSITYGW="$VERSITYGW"
  set +e
  unshare -m -n -p -f --mount-proc --propagation private "$HERE/walk.sh" --inside
  code=$?
  set -e
  if [ "$code" != 0 ]; then
    for f in "$WORK"/state/*.log; do say "--- $(basename "$f") (last 30 lines)"; tail -n 30 "$f" >&2; done
    say "the walk's files stay in $WORK"
  elif [ -z "${WALK_DIR:-}" ]; then
    rm -rf "$WORK"
  fi
  exit "$code"
fi

# ---- inside the namespaces ----
WORK="$WALK_WORK"
STATE="$WORK/state"
export WALK_STATE="$STATE"
for d in /etc /usr /var/lib; do
  name="$(echo "$d" | tr / _)"
  mkdir -p "$WORK/overlay/$name/up" "$WORK/overlay/$name/work"
  mount -t overlay overlay -o "lowerdir=$d,upperdir=$WORK/overlay/$name/up,workdir=$WORK/overlay/$name/work" "$d"
done
mount -t tmpfs tmpfs /var/log
mount -t tmpfs tmpfs /run
ip link set lo up
# The walk's systemctl and editor come first on PATH (see their headers).
mkdir -p "$WORK/shim"
install -m 0755 "$HERE/systemctl" "$WORK/shim/systemctl"
cat > "$WORK/shim/editor" <<EDITOR
#!/usr/bin/env bash
# The operator's edit of the environment file: the walk's values.
set -euo pipefail
f="\$1"
set_var() { if grep -q "^\$1=" "\$f"; then sed -i "s|^\$1=.*|\$1=\$2|" "\$f"; else echo "\$1=\$2" >> "\$f"; fi; }
set_var APP_URL https://localhost
set_var CRON_SECRET walk-cron-secret-0123456789abcdef
set_var METRICS_TOKEN walk-metrics-token-0123456789abcd
set_var SMTP_HOST ""
set_var BACKUP_SCHEDULE "* * * * *"
set_var S3_ENDPOINT http://127.0.0.1:9000
set_var S3_ACCESS_KEY walkaccess
set_var S3_SECRET walksecret
set_var S3_FORCE_PATH_STYLE 1
set_var AUTH_IP_LIMIT 30
EDITOR
chmod 0755 "$WORK/shim/editor"
export PATH="$WORK/shim:$PATH"

# The S3 provider's side: the buckets exist (posix backend: a directory each).
"$WALK_VERSITYGW" --access walkaccess --secret walksecret --port 127.0.0.1:9000 posix "$WORK/s3" \
  > "$STATE/versitygw.log" 2>&1 &
for _ in $(seq 1 3000); do curl -s -o /dev/null http://127.0.0.1:9000/ && break; sleep 0.1; done

# The README's block, as written, with the placeholders filled in; the
# healthcheck's wait, an operator's patience on an idle server (the first
# start migrates: ~1.5 s of CPU), is ten minutes here: a test machine at
# load 35 took over a minute for that start.
BLOCK="$WORK/readme-deploy.sh"
awk '/^## Deploy on one server/ { sec = 1; next }
     sec && /^## / { exit }
     sec && /^```sh/ { code = 1; next }
     sec && code && /^```/ { exit }
     sec && code { print }' "$WORK/checkout/README.md" \
  | sed -e "s/vX\.Y\.Z/$WALK_VERSION/g" \
        -e "s/linux-amd64/linux-$WALK_ARCH/g" \
        -e "s/camellos\.example\.com/localhost/g" \
        -e "s/'CLAVE'/'clave-del-paseo-1'/g" \
        -e "s/healthcheck --wait 60s/healthcheck --wait 600s/g" > "$BLOCK"
[ -s "$BLOCK" ] || die "no hay bloque de órdenes en la sección Deploy del README"
say "running the README's block ($(grep -cv '^#' "$BLOCK") commands)"
(cd "$WORK/checkout" && bash -euo pipefail -x "$BLOCK") > "$STATE/readme.log" 2>&1 \
  || { tail -n 40 "$STATE/readme.log" >&2; die "el bloque del README falló"; }

# ---- what a deployed service must do ----
CA=/var/lib/caddy/.local/share/caddy/pki/authorities/local/root.crt
# Bounds that only stop a walk that hangs: minutes, since a busy machine
# is slow, not broken.
wait_for() { # seconds description command...
  local n="$1" what="$2"; shift 2
  for _ in $(seq 1 $((n * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  die "$what: nada en ${n} s"
}
wait_for 300 "el certificado de la CA local de Caddy" test -s "$CA"
https() { curl -sS --cacert "$CA" "$@"; }
wait_for 300 "https://localhost/api/health" https -f https://localhost/api/health
say "https: $(https https://localhost/api/health)"

code="$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' http://localhost/api/health)"
case "$code" in 30[178]\ https://localhost/api/health) say "http redirects: $code" ;; *) die "http → https: $code" ;; esac

code="$(https -c "$WORK/cookies" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
  -d '{"email":"admin@example.com","password":"clave-del-paseo-1"}' https://localhost/api/auth/login)"
[ "$code" = 200 ] || die "el admin no entra por https: $code"
say "admin signs in over https"

# Two clients behind the proxy (127.0.0.2 and 127.0.0.3 on this loopback):
# one exhausts its sign-in quota, the other is untouched; a header forged by
# a third names the first and is ignored.
login() { # from-address [extra curl args]
  local from="$1"; shift
  https --interface "$from" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' "$@" \
    -d '{"email":"nadie@localhost","password":"incorrecta-123"}' https://localhost/api/auth/login
}
limited=""
for i in $(seq 1 40); do
  c="$(login 127.0.0.2)"
  if [ "$c" = 429 ]; then limited="$i"; break; fi
done
[ -n "$limited" ] || die "40 intentos fallidos desde 127.0.0.2 sin 429"
[ "$(login 127.0.0.3)" = 401 ] || die "127.0.0.3 comparte la cuota de 127.0.0.2"
[ "$(login 127.0.0.4 -H 'X-Forwarded-For: 127.0.0.2')" = 401 ] || die "un X-Forwarded-For falsificado se creyó"
say "quotas behind the proxy: 127.0.0.2 limited at attempt $limited, 127.0.0.3 and a forged header not"

code="$(https -o /dev/null -w '%{http_code}' https://localhost/metrics)"
[ "$code" = 404 ] || die "/metrics sin token: $code (debe ser 404, como sin METRICS_TOKEN)"
# Read whole, then searched (grep -q would close the pipe early: curl 23 under pipefail).
metrics="$(https -f -H 'Authorization: Bearer walk-metrics-token-0123456789abcd' https://localhost/metrics)" \
  || die "/metrics con su token no responde"
grep -q '^camellos_' <<< "$metrics" || die "/metrics con su token no da métricas"
say "metrics behind their bearer"

# Live events: the stream's headers arrive through Caddy while the stream is
# still open (unbuffered). Waited for in the header file curl writes as they
# come, then the stream is closed (a fixed --max-time cost its whole length).
https -b "$WORK/cookies" -N -D "$WORK/events.headers" -o /dev/null https://localhost/api/events >/dev/null 2>&1 &
events=$!
sse() { grep -qi '^content-type: text/event-stream' "$WORK/events.headers" 2>/dev/null; }
for _ in $(seq 1 300); do
  sse && break
  kill -0 "$events" 2>/dev/null || break # the stream ended: nothing more will come
  sleep 0.2
done
kill "$events" 2>/dev/null; wait "$events" 2>/dev/null || true
sse || die "/api/events por Caddy: $(head -n1 "$WORK/events.headers" 2>/dev/null)"
say "live events stream through the proxy"

wait_for 300 "la réplica de Litestream en S3" bash -c "find '$WORK/s3/camellos-replica' -type f | grep -q ."
say "litestream: $(find "$WORK/s3/camellos-replica" -type f | wc -l) objects in the replica bucket"
wait_for 300 "una copia programada en S3" bash -c "find '$WORK/s3/camellos-backups' -type f -name '*.zip' | grep -q ."
say "scheduled backup: $(find "$WORK/s3/camellos-backups" -type f -name '*.zip' -printf '%f\n' | head -n1)"

grep -q '^{.*"level"' "$STATE/camellos.log" || die "el servicio no escribe líneas JSON en su salida"
say "the service logs JSON lines on stdout ($(wc -l < "$STATE/camellos.log") lines)"
say "ok: from nothing to https with replication, backups and metrics"
