# Sourced by scripts/chat and scripts/test: create or update .venv when pyproject.toml changed.
# usage: ensure_venv EXTRAS   (EXTRAS like "" or "st,dev")
ensure_venv() {
  local extras="$1" root stamp want
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  [ -x "$root/.venv/bin/python" ] || python3 -m venv "$root/.venv"
  stamp="$root/.venv/.fuzi-installed"
  want="$(sha256sum "$root/pyproject.toml" | cut -c1-16) [$extras]"
  if [ ! -f "$stamp" ] || ! grep -qxF "$want" "$stamp"; then
    "$root/.venv/bin/python" -m pip install -q --upgrade pip
    if [[ "$extras" == *st* ]]; then
      # torch-based extras: the CPU wheel (a bare "torch" would pull a multi-GB CUDA build).
      "$root/.venv/bin/python" -m pip install -q "torch==2.13.0"
    fi
    "$root/.venv/bin/python" -m pip install -q -e "$root${extras:+[$extras]}"
    echo "$want" >> "$stamp"
  fi
}
