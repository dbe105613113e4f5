#!/bin/bash
# certificate-expiry / diagnose: read-only expiry report. Usage: diagnose.sh [--days N] [PATH|HOST:PORT]...
# Reads certificates only; a file holding a private key is skipped and never printed.
set -u
export LC_ALL=C
PATH=/usr/sbin:/usr/bin:/sbin:/bin

days=30
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --days) shift; days="${1:-}"; case "$days" in ''|*[!0-9]*) echo "diagnose.sh: --days needs a number" >&2; exit 2;; esac ;;
    -h|--help) echo "usage: diagnose.sh [--days N] [PATH|HOST:PORT]..."; exit 0 ;;
    -*) echo "diagnose.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
command -v openssl >/dev/null 2>&1 || { echo "openssl is not installed: nothing can be checked."; exit 0; }
[ "$(id -u)" -eq 0 ] || echo "note: not running as root; private certificate directories (e.g. /etc/letsencrypt) may be unreadable."
now=$(date +%s)
soon=$((days * 86400))

# Prints one line for the first certificate in the PEM text on stdin; $1 labels it.
report() {
  local label="$1" pem end subject issuer t left tag
  pem=$(cat)
  end=$(printf '%s\n' "$pem" | openssl x509 -noout -enddate 2>/dev/null) || { echo "unreadable  $label (not a certificate openssl can parse)"; return; }
  end=${end#notAfter=}
  subject=$(printf '%s\n' "$pem" | openssl x509 -noout -subject -nameopt RFC2253 2>/dev/null); subject=${subject#subject=}
  issuer=$(printf '%s\n' "$pem" | openssl x509 -noout -issuer -nameopt RFC2253 2>/dev/null); issuer=${issuer#issuer=}
  t=$(date -d "$end" +%s 2>/dev/null) || { echo "unreadable  $label (date $end)"; return; }
  left=$(( (t - now) / 86400 ))
  if [ "$t" -le "$now" ]; then tag="EXPIRED"; elif [ $((t - now)) -le "$soon" ]; then tag="SOON"; else tag="ok"; fi
  printf '%-8s %5s days  %s\n         subject: %s\n         issuer:  %s\n         not after: %s\n' "$tag" "$left" "$label" "$subject" "$issuer" "$end"
}

check_file() {
  local f="$1"
  [ -r "$f" ] || { echo "unreadable  $f (permission denied)"; return; }
  # A file with a private key is never read into this script's output.
  if grep -qE -- "-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY-----" "$f" 2>/dev/null; then return; fi
  grep -q -- "-----BEGIN CERTIFICATE-----" "$f" 2>/dev/null || return
  report "$f" < "$f"
}

check_dir() {
  local d="$1"
  find -L "$d" -maxdepth 4 -type f \( -name '*.pem' -o -name '*.crt' -o -name '*.cer' \) -size -1024k 2>/dev/null | sort | head -n 500 | while read -r f; do check_file "$f"; done
}

check_endpoint() {
  local hp="$1" host port pem
  host=${hp%:*}; port=${hp##*:}
  host=${host#[}; host=${host%]}
  pem=$(timeout 15 openssl s_client -connect "$hp" -servername "$host" </dev/null 2>/dev/null | sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p')
  if [ -z "$pem" ]; then echo "unreachable $hp (no TLS handshake within 15 s; for STARTTLS services such as SMTP on 25/587 test the TLS port)"; return; fi
  printf '%s\n' "$pem" | report "$hp (served)"
}

defaults=0
if [ ${#targets[@]} -eq 0 ]; then
  defaults=1
  targets=(/etc/letsencrypt/live /etc/ssl/private /etc/ssl/localcerts /etc/nginx /etc/apache2 /etc/httpd /etc/haproxy /etc/postfix /etc/dovecot /etc/pki/tls/certs /etc/cockpit/ws-certs.d)
  echo "checking default locations (certificates expiring within $days days are SOON):"
fi
for t in "${targets[@]}"; do
  if [[ "$t" =~ ^(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$ ]] && [ ! -e "$t" ]; then
    check_endpoint "$t"
  elif [ -d "$t" ]; then
    check_dir "$t"
  elif [ -f "$t" ]; then
    check_file "$t"
  elif [ ! -e "$t" ]; then
    [ "$defaults" = 1 ] || echo "missing     $t (no such file or directory)"
  else
    echo "skipped     $t (not a file, directory or HOST:PORT)"
  fi
done

if [ -d /run/systemd/system ]; then
  echo
  echo "== renewal timers =="
  timeout 10 systemctl list-timers --all --no-pager 2>/dev/null | grep -iE "certbot|acme|lego|NEXT" || echo "(no certbot/acme timer)"
fi
exit 0
