# Sourced by scripts/test-mcp.sh: one pinned PyPI package in a
# virtual environment under target/, made only when the pinned version is not there yet.
#
#   prepare_python_venv VENV MODULE PACKAGE VERSION
#
# installs python3-venv from Debian when the machine's Python cannot make a venv.
prepare_python_venv() {
  local venv="$1" module="$2" package="$3" version="$4"
  local python="$venv/bin/python"
  if "$python" -c "import $module, importlib.metadata as m; assert m.version('$package') == '$version'" >/dev/null 2>&1; then
    return 0
  fi
  if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3-venv
  fi
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
  "$python" -m pip install --quiet --disable-pip-version-check "$package==$version"
}
