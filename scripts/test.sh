#!/usr/bin/env bash
# Set-up command 2: installs what is needed and runs every check and test: formatting, clippy
# with warnings denied, unit and integration tests (real SQLite, LanceDB, PDFs and model; the
# keychain tests against a real Secret Service in a private D-Bus session).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
install_system_packages
install_rust
fetch_model
setup_env
say "cargo fmt --check"
cargo fmt --all -- --check
say "cargo clippy"
cargo clippy --locked --all-targets -- -D warnings
say "cargo test"
dbus-run-session -- bash scripts/with-keyring.sh cargo test --locked -- --test-threads 2
