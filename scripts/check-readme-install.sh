#!/usr/bin/env bash
# Keeps the README's install line true: in a fresh Debian 12 root (debootstrap minbase, as the sandbox image is
# built), it runs the README's Debian block exactly as written (only `sudo ` dropped: the chroot is root's, and
# apt answers yes), then follows the README: a clone of this repository (its HEAD), `npm install`, the first
# run's `npm run build`, `npx posthoc --help` and `npx posthoc sandbox status`. Anything missing from the README's
# package list fails here, as it would for a newcomer. Needs root and debootstrap (scripts/setup-test-env.sh apt);
# about 9 minutes, most of it apt and npm downloading.
#
# Three settings differ from a newcomer's machine, all because of this machine's network: the root trusts the
# machine's own certificate authorities (NODE_EXTRA_CA_CERTS), and since only Debian's archive and the npm
# registry are reachable, Electron's binary is not downloaded (only `npm start` needs it), and node-gyp builds keytar
# against the headers of the Node it installed rather than downloading them from nodejs.org.
#
#   bash scripts/check-readme-install.sh [ROOT_DIR]    (ROOT_DIR is removed first; default: a new temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

if [ "$(id -u)" -ne 0 ]; then echo "check-readme-install: run as root (it builds a Debian root with debootstrap)" >&2; exit 2; fi
command -v debootstrap >/dev/null || { echo "check-readme-install: needs debootstrap: bash scripts/setup-test-env.sh apt" >&2; exit 2; }

# The block between the markers, as a newcomer would paste it.
block=$(awk '/<!-- readme-install:debian -->/{on=1; next} /<!-- \/readme-install -->/{on=0} on && !/^```/' README.md)
[ -n "$block" ] || { echo "check-readme-install: README.md has no <!-- readme-install:debian --> block" >&2; exit 1; }

root=${1:-$(mktemp -d /tmp/posthoc-readme-root.XXXXXX)}
mounted=()
cleanup() {
  local m
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  [ -n "${KEEP_ROOT:-}" ] || rm -rf --one-file-system "$root"
}
trap cleanup EXIT
rm -rf --one-file-system "$root"
mkdir -p "$root"

step() { printf '== %s (%ss)\n' "$1" "$SECONDS"; }

step "debootstrap bookworm minbase"
debootstrap --variant=minbase bookworm "$root" >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
rm -f "$root.debootstrap.log"
for m in proc sys dev dev/pts; do
  mkdir -p "$root/$m"
  case $m in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sys "$root/sys" ;;
    *) mount --bind "/$m" "$root/$m" ;;
  esac
  mounted+=("$root/$m")
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
# This machine's own certificate authorities (a network that inspects TLS has one): the root trusts them too,
# as the machine does, once the README's packages install ca-certificates.
extra_ca=0
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  extra_ca=1
fi
# No services start inside the root (docker.io's postinst would try), and apt answers yes as a person would.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod +x "$root/usr/sbin/policy-rc.d"
echo 'APT::Get::Assume-Yes "true";' >"$root/etc/apt/apt.conf.d/90yes"

in_root() {
  local ca=()
  [ "$extra_ca" = 1 ] && ca=(NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "${ca[@]}" "$@"
}

step "the README's Debian lines"
printf '%s\n' "$block" | sed 's/^/  | /'
in_root apt-get update -qq
in_root bash -euo pipefail -c "$(printf '%s\n' "$block" | sed 's/\bsudo //g')"
in_root node --version

step "a clone of this repository"
# What is committed (HEAD), as a newcomer's clone has it.
git clone -q "file://$repo" "$root/root/posthoc"

nodedir=$(in_root sh -c 'd=$(npm root -g)/node/node_modules; for p in "$d"/node-linux-*; do [ -d "$p/include/node" ] && echo "$p"; done' | head -1)
env_extra=(ELECTRON_SKIP_BINARY_DOWNLOAD=1)
[ -n "$nodedir" ] && env_extra+=("npm_config_nodedir=$nodedir")

step "npm install"
in_root env "${env_extra[@]}" sh -c 'cd /root/posthoc && npm install --no-audit --no-fund' >"$root/npm-install.log" 2>&1 || {
  tail -40 "$root/npm-install.log"
  echo "check-readme-install: npm install failed in a root that followed the README" >&2
  exit 1
}
step "npm run build (the README's first run)"
in_root env "${env_extra[@]}" sh -c 'cd /root/posthoc && npm run build' >"$root/npm-build.log" 2>&1 || { tail -30 "$root/npm-build.log"; exit 1; }
step "npx posthoc --help"
help_out=$(in_root sh -c 'cd /root/posthoc && npx posthoc --help')
printf '%s\n' "$help_out" | sed -n '1,4s/^/  | /p'
grep -q 'sandbox' <<<"$help_out" || { echo "check-readme-install: posthoc --help did not list its commands" >&2; exit 1; }
step "npx posthoc sandbox status"
# No Docker daemon runs in the root: the status must say so and what to do, and exit without a crash.
status_out=$(in_root sh -c 'cd /root/posthoc && npx posthoc sandbox status 2>&1; echo "exit=$?"')
printf '%s\n' "$status_out" | sed 's/^/  | /'
# An answer, not a crash: an exit code the CLI gives (0 ok, 1 failed, 2 not usable yet), Docker named with what
# to do, and no stack trace.
case $status_out in
  *"exit=0" | *"exit=1" | *"exit=2") ;;
  *) echo "check-readme-install: posthoc sandbox status ended with an unexpected exit code" >&2; exit 1 ;;
esac
grep -q 'Start Docker\|docker: running' <<<"$status_out" || { echo "check-readme-install: sandbox status did not say what to do about Docker" >&2; exit 1; }
if grep -q '^    at ' <<<"$status_out"; then echo "check-readme-install: sandbox status crashed with a stack trace" >&2; exit 1; fi
step "the README's install line works in a fresh Debian root"
