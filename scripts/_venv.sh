# Sourced by scripts/chat and scripts/test: create or update .venv when pyproject.toml changed.
# usage: ensure_venv EXTRAS   (EXTRAS like "" or "st,dev")
# Quiet on success (one line); on failure the whole pip log (.venv/install.log) is printed to stderr.
ensure_venv() {
  local extras="$1" root stamp want log
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  stamp="$root/.venv/.fuzi-installed"
  want="$(sha256sum "$root/pyproject.toml" | cut -c1-16) [$extras]"
  if [ -x "$root/.venv/bin/python" ] && [ -f "$stamp" ] && grep -qxF "$want" "$stamp"; then
    return 0
  fi
  log="$root/.venv/install.log"
  echo "setting up .venv${extras:+ [$extras]} (first run: a minute or two; log: .venv/install.log) …" >&2
  [ -x "$root/.venv/bin/python" ] || python3 -m venv "$root/.venv" || {
    echo "could not create $root/.venv (is python3-venv installed?)" >&2; return 1; }
  : > "$log"
  if ! _fuzi_pip "$root" "$extras" >> "$log" 2>&1; then
    echo "installing Fuzi's dependencies failed; the pip log follows:" >&2
    cat "$log" >&2
    return 1
  fi
  echo "$want" >> "$stamp"
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
