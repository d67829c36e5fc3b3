#!/usr/bin/env bash
# Installs a real VS Code host for the extension's end-to-end test: code-server
# 4.100.3 (VS Code 1.100.3, the newest that runs on Node 20) from npm, Debian's chromium and
# npm's playwright-core to drive it. Everything npm installs goes under the directory given
# (default target/vscode-host), never into the repository. Idempotent: a finished install
# leaves a stamp file and is skipped. code-server's own install scripts fetch ripgrep from GitHub and ask for --unsafe-perm as
# root, so they are skipped and done here by hand with Debian's ripgrep and node headers.
#
#   scripts/install-vscode-host.sh [DIR]
#
# Prints the paths on stdout as CODE_SERVER=… CHROMIUM=… PLAYWRIGHT_CORE=… lines.
set -euo pipefail
cd "$(dirname "$0")/.."

host_dir=$(realpath -m "${1:-target/vscode-host}")
code_server_version=4.100.3
playwright_version=1.57.0
stamp="$host_dir/.installed-code-server-$code_server_version-playwright-$playwright_version"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quietly() {
  if ! "$@" >"$log" 2>&1; then
    tail -n 80 "$log" >&2
    echo "failed: $*" >&2
    exit 1
  fi
}

debian_packages=(chromium ripgrep build-essential python3 pkg-config libsecret-1-dev libkrb5-dev libxkbfile-dev)
missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "missing Debian packages and not root: apt-get install -y ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  echo "   installing Debian packages: ${missing[*]}" >&2
  quietly "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  quietly "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$stamp" ]; then
  echo "   installing code-server $code_server_version and playwright-core $playwright_version under $host_dir" >&2
  rm -rf "$host_dir"
  mkdir -p "$host_dir"
  # Native modules build against Debian's node headers (nothing from nodejs.org); node-pty
  # runs `npx node-gyp`, which must not stop to ask.
  export npm_config_nodedir=/usr npm_config_yes=true npm_config_audit=false npm_config_fund=false
  export npm_config_loglevel=error npm_config_update_notifier=false
  (
    cd "$host_dir"
    echo '{"name":"fslens-vscode-host","private":true}' > package.json
    quietly npm pack "code-server@$code_server_version"
    quietly npm install --ignore-scripts "./code-server-$code_server_version.tgz" "playwright-core@$playwright_version"
    rm -f "code-server-$code_server_version.tgz"
    quietly npm rebuild argon2
    cd node_modules/code-server/lib/vscode
    quietly npm install --ignore-scripts --omit=dev
    mkdir -p node_modules/@vscode/ripgrep/bin
    ln -sf /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg
    quietly npm rebuild
    # What code-server's postinstall.sh does for the VS Code part.
    ln -sfn node_modules node_modules.asar
    ln -sf code-linux.sh bin/remote-cli/code-server
    ln -sf browser-linux.sh bin/helpers/browser.sh
    (cd extensions && quietly npm install --ignore-scripts --omit=dev)
  )
  touch "$stamp"
fi

echo "CODE_SERVER=$host_dir/node_modules/code-server/out/node/entry.js"
echo "CHROMIUM=/usr/bin/chromium"
echo "PLAYWRIGHT_CORE=$host_dir/node_modules/playwright-core"
