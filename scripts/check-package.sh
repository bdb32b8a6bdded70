#!/usr/bin/env bash
# Checks the installers the way a user meets them (run scripts/package.sh first):
#  1. the .rpm's metadata and file list (read with Debian's rpm tool);
#  2. `apt-get install ./dist/policypal_*.deb` with every download sent to a closed port (what
#     it depends on must already be on the machine: the install uses no network);
#  3. what the .deb installed: both programs on PATH, the model, icons, the desktop entry that
#     opens PDFs, licences, and the Depends line;
#  4. the installed app under Xvfb as a fresh user (tests/e2e/package.py): first-run screen,
#     "Open with" on a PDF, a cited answer, and the installed CLI on the same library;
#  5. `apt-get remove policypal`: the programs are gone, the user's library is still there.
# Screenshots and logs go to $OUT (default target dir/package-check). Needs root (apt-get).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
setup_env
OUT=${OUT:-$CARGO_TARGET_DIR/package-check}
rm -rf "$OUT" && mkdir -p "$OUT"
DEB=$(ls "$ROOT"/dist/policypal_*.deb 2>/dev/null | head -1)
RPM=$(ls "$ROOT"/dist/policypal-*.rpm 2>/dev/null | head -1)
[ -n "$DEB" ] && [ -n "$RPM" ] || { echo "no packages in dist/: run scripts/package.sh first" >&2; exit 1; }
fail() { echo "package check FAILED: $*" >&2; exit 1; }
ls -l "$DEB" "$RPM"

say "the .rpm"
command -v rpm >/dev/null || as_root apt-get install -y -q --no-install-recommends rpm >/dev/null
rpm -qip "$RPM" 2>/dev/null | sed -n '1,12p'
rpm -qpR "$RPM" 2>/dev/null | tee "$OUT/rpm-requires.txt"
rpm -qpl "$RPM" 2>/dev/null > "$OUT/rpm-files.txt"
for f in /usr/bin/policypal /usr/bin/policypal-desktop /usr/share/policypal/models/all-MiniLM-L6-v2/model.safetensors \
         /usr/share/applications/policypal.desktop /usr/share/doc/policypal/THIRD-PARTY; do
  grep -qx "$f" "$OUT/rpm-files.txt" || fail "the .rpm lacks $f"
done
grep -q tesseract "$OUT/rpm-requires.txt" || fail "the .rpm does not require tesseract"

say "installing the .deb (downloads go to a closed port)"
as_root apt-get remove -y -q policypal >/dev/null 2>&1 || true
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  -o Acquire::http::Proxy=http://127.0.0.1:9 -o Acquire::https::Proxy=http://127.0.0.1:9 "$DEB"
dpkg -s policypal | tee "$OUT/deb-status.txt" | sed -n '/^Depends/p;/^Recommends/p;/^Installed-Size/p'
for p in tesseract-ocr tesseract-ocr-eng poppler-utils libwebkit2gtk-4.1-0; do
  grep -q "^Depends:.*$p" "$OUT/deb-status.txt" || fail "Depends lacks $p"
done
[ "$(command -v policypal)" = /usr/bin/policypal ] || fail "policypal is not on PATH"
[ "$(command -v policypal-desktop)" = /usr/bin/policypal-desktop ] || fail "policypal-desktop is not on PATH"
DESKTOP=/usr/share/applications/policypal.desktop
grep -q '^MimeType=application/pdf;' "$DESKTOP" || fail "the desktop entry does not open PDFs"
grep -q '^Exec=policypal-desktop %F' "$DESKTOP" || fail "the desktop entry does not pass the files"
cat "$DESKTOP"
for size in 16x16 24x24 32x32 48x48 64x64 128x128 256x256 512x512; do
  ls /usr/share/icons/hicolor/$size/apps/policypal-desktop.png >/dev/null 2>&1 \
    || ls /usr/share/icons/hicolor/$size/apps/ 2>/dev/null | grep -qi policypal || fail "no $size icon"
done
ls /usr/share/icons/hicolor/*/apps/ | grep -i policypal | sort -u
test -s /usr/share/policypal/models/all-MiniLM-L6-v2/model.safetensors || fail "no model"
grep -q "Apache License" /usr/share/policypal/models/all-MiniLM-L6-v2/LICENSE || fail "no model licence"
grep -q "MIT License" /usr/share/doc/policypal/LICENSE || fail "no licence"
test -s /usr/share/doc/policypal/THIRD-PARTY || fail "no third-party list"
policypal --version

say "the installed app as a new user (Xvfb)"
APP_PDF=$ROOT/tests/fixtures/capital-2024.pdf
xvfb-run -a -s "-screen 0 1440x900x24" python3 tests/e2e/package.py /usr/bin/policypal-desktop /usr/bin/policypal "$OUT" "$APP_PDF"
USER_HOME=$(cat "$OUT/home.txt")
LIBRARY=$USER_HOME/.local/share/policypal

say "removing the package"
as_root apt-get remove -y -q policypal
[ ! -e /usr/bin/policypal ] && [ ! -e /usr/bin/policypal-desktop ] || fail "the programs outlived the package"
test -s "$LIBRARY/policypal.sqlite3" || fail "the user's library is gone"
ls -la "$LIBRARY"
echo "package check: all passed (screenshots in $OUT)"
