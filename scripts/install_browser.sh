#!/usr/bin/env bash
# Chromium for the HTML report tests (tests/test_reports.py), as `make browser` installs it (`make check` runs it):
#
#   - nothing, when a chromium is on PATH already;
#   - otherwise Debian's `chromium` package and the libraries it depends on, without the packages it only recommends
#     (--no-install-recommends: on Debian 12 those were 88 more, among them udev, avahi-daemon, printer tools and perl
#     modules whose install upgraded perl), removing nothing (--no-remove);
#   - and only when apt would upgrade no package already installed: it is asked first (apt-get -s), and when the
#     install would upgrade one, nothing is installed and the packages are named. MEMPROBE_BROWSER_UPGRADES=1 lets
#     the install upgrade them (a throwaway CI machine: .ci/run sets it).
#
# apt-get update runs only when the package lists do not know chromium (a fresh machine). Installing needs root;
# as another user it says what to run.
set -euo pipefail

say() { echo "make browser: $*"; }

if command -v chromium >/dev/null 2>&1; then
    say "chromium is installed ($(command -v chromium)); nothing to install"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    say "no chromium on PATH and no apt-get to install one: install Chromium yourself (the HTML tests need it)" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    say "chromium is not installed; as root run: apt-get install --no-install-recommends chromium" >&2
    exit 2
fi
if ! apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [^(]'; then
    say "the package lists do not know chromium: apt-get update"
    apt-get update -qq
fi
plan=$(apt-get -s install --no-install-recommends --no-remove chromium)
# "Inst NAME [INSTALLED-VERSION] (NEW-VERSION ...)" is an upgrade; "Inst NAME (VERSION ...)" a new package
upgrades=$(printf '%s\n' "$plan" | awk '$1 == "Inst" && $3 ~ /^\[/ {printf "%s ", $2}')
new=$(printf '%s\n' "$plan" | awk '$1 == "Inst" && $3 !~ /^\[/ {printf "%s ", $2}')
if [ -n "$upgrades" ] && [ "${MEMPROBE_BROWSER_UPGRADES:-0}" != 1 ]; then
    say "installing chromium would upgrade packages already installed: ${upgrades% }; nothing was installed." \
        "Upgrade them yourself, or let make do it: MEMPROBE_BROWSER_UPGRADES=1 make browser" >&2
    exit 2
fi
say "installing ${new% }${upgrades:+ (upgrading ${upgrades% })}"
apt-get install -y -qq --no-install-recommends --no-remove chromium
