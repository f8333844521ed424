# Sourced by scripts/chat and scripts/test: create or update .venv when pyproject.toml changed.
# usage: ensure_venv EXTRAS   (EXTRAS like "" or "st,dev")
# Quiet on success (one line); on failure the whole install log (.venv/install.log) is printed to stderr.
ensure_venv() {
  local extras="$1" root log
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  if venv_ready "$extras"; then
    _fuzi_compile_later "$root"  # an earlier one that did not finish (the machine went down)
    return 0
  fi
  log="$root/.venv/install.log"
  echo "setting up .venv${extras:+ [$extras]} (first run: half a minute or more; log: .venv/install.log) …" >&2
  # Without pip (ensurepip is 3–5 s of a first start): uv installs; pip is added where it is needed.
  [ -x "$root/.venv/bin/python" ] || python3 -m venv --without-pip "$root/.venv" || {
    echo "could not create $root/.venv (is python3-venv installed?)" >&2; return 1; }
  : > "$log"
  rm -f "$root/.venv/.fuzi-compiled"
  _fuzi_compile_own "$root"  # Fuzi's own modules need no venv: compiled while uv installs
  if ! _fuzi_install "$root" "$extras" >> "$log" 2>&1; then
    echo "installing Fuzi's dependencies failed; the install log follows:" >&2
    cat "$log" >&2
    return 1
  fi
  _fuzi_want "$root" "$extras" >> "$root/.venv/.fuzi-installed"
  _fuzi_compile_later "$root"
}

# usage: venv_ready EXTRAS — true when .venv holds this pyproject.toml's (and requirements.lock's)
# install with EXTRAS, its kernel built from these sources (setup.py and core/retrieval/e5: a changed
# kernel, or a new build of it, is compiled by the next install).
venv_ready() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  [ -x "$root/.venv/bin/python" ] && [ -f "$root/.venv/.fuzi-installed" ] &&
    grep -qxF "$(_fuzi_want "$root" "$1")" "$root/.venv/.fuzi-installed"
}

_fuzi_want() {
  echo "$(cat "$1/pyproject.toml" "$1/requirements.lock" "$1/setup.py" "$1"/core/retrieval/e5/*.[ch] 2>/dev/null |
    sha256sum | cut -c1-16) [$2]"
}

# Byte-compiling at install took 8.5 s of a fresh clone's first answer (uv, 5,870 files on 2 cores).
# The venv and Fuzi's own modules are compiled after the install instead, in the background at the
# lowest priority, while the first start answers and builds its index; under PYTHONDONTWRITEBYTECODE
# that first start compiles what it imports in memory (about 2 s of CPU), later starts read the .pyc
# files (an uncompiled venv recompiled every module at every start: 2 s of a 3.5 s warm start).
_fuzi_compile_later() {
  local root="$1" py="$1/.venv/bin/python" lock=()
  [ -f "$root/.venv/.fuzi-compiled" ] && return 0
  # One compile at a time; started through Popen, which leaves it none of this shell's descriptors
  # (a pipe the caller reads to its end must not wait for the compile).
  command -v flock >/dev/null && lock=(flock -n "$root/.venv/.fuzi-compiling")
  "$py" -c 'import subprocess as s, sys; s.Popen(sys.argv[1:], stdin=s.DEVNULL, stdout=s.DEVNULL, stderr=s.DEVNULL, start_new_session=True)' \
    ${lock[@]+"${lock[@]}"} sh -c 'nice -n 19 "$0" -m compileall -q -j 0 "$1/.venv/lib" "$1/bot" "$1/core" "$1/adapters" "$1/data"
      [ $? -le 1 ] && touch "$1/.venv/.fuzi-compiled"' "$py" "$root"  # 1: a file that does not compile
}

# Fuzi's own modules (bot, core, adapters, data) need nothing installed: the venv's interpreter
# compiles them while uv downloads and builds, at the lowest priority, so the first start reads them
# instead of compiling them in memory (0.25 s of its CPU); `_fuzi_compile_later` finds them up to date.
_fuzi_compile_own() {
  local root="$1" py="$1/.venv/bin/python"
  "$py" -c 'import subprocess as s, sys; s.Popen(sys.argv[1:], stdin=s.DEVNULL, stdout=s.DEVNULL, stderr=s.DEVNULL, start_new_session=True)' \
    nice -n 19 "$py" -m compileall -q -j 0 "$root/bot" "$root/core" "$root/adapters" "$root/data"
}

# uv resolves, downloads and unpacks in parallel; pip does one wheel at a time (the first
# `./scripts/chat` spent ~60 s of its 67.5 s in pip). Pinned, installed by pip into the venv.
FUZI_UV_VERSION="0.13.8"

_fuzi_install() {
  local root="$1" extras="$2"
  # torch-based extras stay with pip: it picks the CPU torch wheel the machine's pip settings point at.
  if [[ "$extras" != *st* ]] && _fuzi_uv "$root" "$extras"; then
    return 0
  fi
  [[ "$extras" == *st* ]] || echo "uv could not install; falling back to pip"
  _fuzi_pip "$root" "$extras"
}

# jieba comes as an sdist only: uv builds its wheel and unpacks it at once. Stored rather than deflated,
# that build takes 0.6 s of CPU instead of 1.9 (19 MB of dictionaries), on a first install's path.
FUZI_UV_BUILD=(--config-settings-package "jieba:--build-option=--compression=stored")

_fuzi_uv() {
  local root="$1" extras="$2" lock="$1/requirements.lock"
  _fuzi_uv_ready "$root" || return 1
  local uv=("${_fuzi_uv_cmd[@]}") args=("${_fuzi_uv_args[@]}" "${FUZI_UV_BUILD[@]}")
  if [ -z "$extras" ] && [ -f "$lock" ]; then
    # The pinned runtime set (requirements.lock): no resolve, one index lookup per pin. Any miss (a
    # pin that this Python or these indexes lack, a dependency that the lock does not hold) resolves.
    "${uv[@]}" pip install "${args[@]}" --no-deps -r "$lock" -e "$root" &&
      "${uv[@]}" pip check --python "$root/.venv/bin/python" && return 0
    echo "requirements.lock did not install as it is; resolving pyproject.toml's requirements instead"
  fi
  "${uv[@]}" pip install "${args[@]}" -e "$root${extras:+[$extras]}"
}

# usage: _fuzi_uv_ready ROOT — installs uv into ROOT/.venv; sets _fuzi_uv_cmd (uv, with pip's CA bundle
# as SSL_CERT_FILE) and _fuzi_uv_args (pip's own settings: pip.conf, PIP_* variables: indexes,
# find-links, constraints).
_fuzi_uv_ready() {
  local root="$1" py="$1/.venv/bin/python" key value item conf
  local pip=("$py" -m pip --disable-pip-version-check --no-input)
  _fuzi_uv_cmd=(env "$root/.venv/bin/uv")
  _fuzi_uv_args=(--python "$py" --index-strategy unsafe-best-match)
  # A venv made without pip: python3's own pip works on it (`--python`: pip 22.3 or later), else
  # ensurepip. Its settings are read while uv installs (each pip start is 0.5–1 s).
  "$py" -m pip --version >/dev/null 2>&1 || pip=(python3 -m pip --disable-pip-version-check --no-input --python "$py")
  conf="$(mktemp)"
  "${pip[@]}" config list >"$conf" 2>/dev/null &
  if [ ! -x "$root/.venv/bin/uv" ] && ! "${pip[@]}" install -q "uv==$FUZI_UV_VERSION"; then
    wait $! || true
    [ "${pip[0]}" = python3 ] && _fuzi_ensurepip "$py" || { rm -f "$conf"; return 1; }
    pip=("$py" -m pip --disable-pip-version-check --no-input)
    "${pip[@]}" install -q "uv==$FUZI_UV_VERSION" || { rm -f "$conf"; return 1; }
    "${pip[@]}" config list >"$conf" 2>/dev/null
  fi
  wait $! || true
  # `pip config list` prints values as Python literals: a pip.conf value written on several lines
  # (several extra indexes) comes as one line with "\n" between its items.
  while IFS='=' read -r key value; do
    value="${value#\'}"; value="${value%\'}"; value="${value//\\n/ }"
    for item in $value; do
      case "${key##*.}" in
        index-url) _fuzi_uv_args+=(--index-url "$item") ;;
        extra-index-url) _fuzi_uv_args+=(--extra-index-url "$item") ;;
        find-links) _fuzi_uv_args+=(--find-links "$item") ;;
        constraint) _fuzi_uv_args+=(--constraint "$item") ;;
        no-index) [ "$item" = "true" ] || [ "$item" = "1" ] && _fuzi_uv_args+=(--no-index) ;;
        cert) _fuzi_uv_cmd=(env "SSL_CERT_FILE=$item" "$root/.venv/bin/uv") ;;  # uv's name for a CA bundle
      esac
    done
  done <"$conf"
  rm -f "$conf"
}

_fuzi_pip() {
  # Byte-compiled at install (about 8 s more on 2 cores): where PYTHONDONTWRITEBYTECODE is set, a
  # --no-compile venv recompiled every imported module at every start (2 s of a 3.5 s warm start).
  # pip is not upgraded (the venv's own pip does).
  local root="$1" extras="$2" pip=("$1/.venv/bin/python" -m pip --disable-pip-version-check --no-input)
  _fuzi_ensurepip "$root/.venv/bin/python" || return 1
  if [[ "$extras" == *st* ]]; then
    # torch-based extras: the CPU wheel (a bare "torch" would pull a multi-GB CUDA build).
    "${pip[@]}" install "torch==2.13.0" || return 1
  fi
  "${pip[@]}" install -e "$root${extras:+[$extras]}"
}

_fuzi_ensurepip() {
  "$1" -m pip --version >/dev/null 2>&1 || "$1" -m ensurepip --default-pip
}
