#!/usr/bin/env bash
# Runs a command with an unlocked GNOME Keyring (a real Secret Service) in the current D-Bus
# session; used by scripts/test.sh inside `dbus-run-session`.
set -euo pipefail
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
export HOME_KEYRING_DIR=$(mktemp -d)
export XDG_DATA_HOME=$HOME_KEYRING_DIR
eval "$(printf 'policypal-test' | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)" || true
"$@"
