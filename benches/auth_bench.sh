#!/usr/bin/env bash
# What a refused basic-auth request costs (issue #54, item 11): nvq serve
# with two bcrypt users, of cost 4 and of cost COST (default 12, as in the
# issue), listed in both orders; for each order the median time of a 401
# for an unknown user, a wrong password of the cost-COST user and one of
# the cost-4 user (ROUNDS tries each, alternated so that the machine's load
# falls on all three alike; curl's time_total, one connection a request).
# The rule: the largest median is within 1.5x of the smallest.
# Prints Markdown rows for benches/RESULTS.md.
# NVQ: the nvq binary (default target/release/nvq; the debug build's
# dependencies, bcrypt among them, are optimised too). Needs curl, and
# PyPI once (bcrypt, to write the hashes).
set -euo pipefail
cd "$(dirname "$0")/.."
nvq=${NVQ:-target/release/nvq}
cost=${COST:-12}
rounds=${ROUNDS:-9}
[ -x "$nvq" ] || { echo "build first: cargo build --release (or NVQ=target/debug/nvq)" >&2; exit 1; }
venv=target/pyenv-bench-auth
if ! "$venv/bin/python" -c 'import bcrypt' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check bcrypt==4.2.1
fi
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
hash() { "$venv/bin/python" -c 'import bcrypt,sys; print(bcrypt.hashpw(b"right", bcrypt.gensalt(int(sys.argv[1]))).decode())' "$1"; }
cheap=$(hash 4)
dear=$(hash "$cost")

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

for order in cheap-first dear-first; do
  if [ "$order" = cheap-first ]; then
    printf 'basic_auth_users:\n  cheap: %s\n  dear: %s\n' "$cheap" "$dear" >"$tmp/web.yml"
  else
    printf 'basic_auth_users:\n  dear: %s\n  cheap: %s\n' "$dear" "$cheap" >"$tmp/web.yml"
  fi
  chmod 600 "$tmp/web.yml"
  "$nvq" --simulate serve --web.listen-address=127.0.0.1:0 --web.config.file="$tmp/web.yml" 2>"$tmp/log" &
  pid=$!
  addr=
  for _ in $(seq 200); do
    addr=$(grep -o 'http://[^/]*' "$tmp/log" | head -1 | cut -c8-) && [ -n "$addr" ] && break
    sleep 0.05
  done
  [ -n "$addr" ] || { cat "$tmp/log" >&2; exit 1; }
  : >"$tmp/unknown"; : >"$tmp/dear"; : >"$tmp/cheap"
  for i in $(seq "$rounds"); do
    for who in unknown dear cheap; do
      user=$who; [ "$who" = unknown ] && user=mallory
      out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -u "$user:wrong$i" "http://$addr/metrics")
      [ "${out%% *}" = 401 ] || { echo "expected 401, got $out" >&2; exit 1; }
      echo "${out#* }" >>"$tmp/$who"
    done
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  u=$(median <"$tmp/unknown"); d=$(median <"$tmp/dear"); c=$(median <"$tmp/cheap")
  awk -v o="$order" -v k="$cost" -v u="$u" -v d="$d" -v c="$c" -v n="$rounds" 'BEGIN {
    lo = u; if (d < lo) lo = d; if (c < lo) lo = c
    hi = u; if (d > hi) hi = d; if (c > hi) hi = c
    printf "| %s | %d | %.1f | %.1f | %.1f | %.2f |\n", o, n, u * 1000, d * 1000, c * 1000, hi / lo
  }'
done
