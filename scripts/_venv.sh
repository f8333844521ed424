# Sourced by scripts/chat and scripts/test: create or update .venv when pyproject.toml changed.
# usage: ensure_venv EXTRAS   (EXTRAS like "" or "st,dev")
# Quiet on success (one line); on failure the whole install log (.venv/install.log) is printed to stderr.
ensure_venv() {
  local extras="$1" root stamp want log
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  stamp="$root/.venv/.fuzi-installed"
  want="$(sha256sum "$root/pyproject.toml" | cut -c1-16) [$extras]"
  if [ -x "$root/.venv/bin/python" ] && [ -f "$stamp" ] && grep -qxF "$want" "$stamp"; then
    return 0
  fi
  log="$root/.venv/install.log"
  echo "setting up .venv${extras:+ [$extras]} (first run: half a minute or more; log: .venv/install.log) …" >&2
  [ -x "$root/.venv/bin/python" ] || python3 -m venv "$root/.venv" || {
    echo "could not create $root/.venv (is python3-venv installed?)" >&2; return 1; }
  : > "$log"
  if ! _fuzi_install "$root" "$extras" >> "$log" 2>&1; then
    echo "installing Fuzi's dependencies failed; the install log follows:" >&2
    cat "$log" >&2
    return 1
  fi
  echo "$want" >> "$stamp"
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

_fuzi_uv() {
  local root="$1" extras="$2" py="$1/.venv/bin/python" key value item cert=()
  local pip=("$py" -m pip --disable-pip-version-check --no-input)
  local args=(--python "$py" --index-strategy unsafe-best-match --compile-bytecode)
  [ -x "$root/.venv/bin/uv" ] || "${pip[@]}" install -q "uv==$FUZI_UV_VERSION" || return 1
  # pip's own settings (pip.conf, PIP_* variables: indexes, find-links, constraints, the CA bundle)
  # apply to uv too. `pip config list` prints values as Python literals: a pip.conf value written on
  # several lines (several extra indexes) comes as one line with "\n" between its items.
  while IFS='=' read -r key value; do
    value="${value#\'}"; value="${value%\'}"; value="${value//\\n/ }"
    for item in $value; do
      case "${key##*.}" in
        index-url) args+=(--index-url "$item") ;;
        extra-index-url) args+=(--extra-index-url "$item") ;;
        find-links) args+=(--find-links "$item") ;;
        constraint) args+=(--constraint "$item") ;;
        no-index) [ "$item" = "true" ] || [ "$item" = "1" ] && args+=(--no-index) ;;
        cert) cert=("SSL_CERT_FILE=$item") ;;  # uv's name for a custom CA bundle
      esac
    done
  done < <("${pip[@]}" config list 2>/dev/null)
  env ${cert[@]+"${cert[@]}"} "$root/.venv/bin/uv" pip install "${args[@]}" -e "$root${extras:+[$extras]}"
}

_fuzi_pip() {
  # Byte-compiled at install (about 8 s more on 2 cores): where PYTHONDONTWRITEBYTECODE is set, a
  # --no-compile venv recompiled every imported module at every start (2 s of a 3.5 s warm start).
  # pip is not upgraded (the venv's own pip does).
  local root="$1" extras="$2" pip=("$1/.venv/bin/python" -m pip --disable-pip-version-check --no-input)
  if [[ "$extras" == *st* ]]; then
    # torch-based extras: the CPU wheel (a bare "torch" would pull a multi-GB CUDA build).
    "${pip[@]}" install "torch==2.13.0" || return 1
  fi
  "${pip[@]}" install -e "$root${extras:+[$extras]}"
}
