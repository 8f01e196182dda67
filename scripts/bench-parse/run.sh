#!/usr/bin/env bash
# Compares the throughput of `airi parse --jsonl` with the TypeScript
# reference bot's parsing pipeline (best-effort-json-parser on Node) on the
# same large input: the parser corpus repeated to LINES lines.
#
# Usage: scripts/bench-parse/run.sh [LINES] [RUNS]
# Needs go, node and npm. best-effort-json-parser is installed into a
# temporary directory outside the repository.
set -euo pipefail

lines=${1:-100000}
runs=${2:-5}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building airi and installing best-effort-json-parser in $work" >&2
(cd "$repo" && go build -o "$work/airi" ./cmd/airi)
(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund best-effort-json-parser >/dev/null)

node -e '
const fs = require("fs");
const [src, dst, n] = [process.argv[1], process.argv[2], Number(process.argv[3])];
const raws = fs.readFileSync(src, "utf8").split("\n").filter(Boolean)
  .map((l) => JSON.stringify({ raw: JSON.parse(l).raw }));
const out = [];
for (let i = 0; i < n; i++) out.push(raws[i % raws.length]);
fs.writeFileSync(dst, out.join("\n") + "\n");
' "$repo/testdata/parse/corpus.jsonl" "$work/input.jsonl" "$lines"
echo "input: $lines lines, $(wc -c <"$work/input.jsonl") bytes, $(nproc) cores" >&2

# One timed run: prints "WALL CPU" in seconds, CPU = user + system.
timed() {
  local t wall user sys
  t=$( { TIMEFORMAT='%R %U %S'; time "$@" <"$work/input.jsonl" >"$work/out-$tag.jsonl"; } 2>&1 )
  read -r wall user sys <<<"$t"
  echo "$wall $(echo "$user + $sys" | bc)"
}

# The two pipelines run alternately, so that both see the same machine
# load; the best run of each counts.
ref_wall="" ref_cpu="" airi_wall="" airi_cpu=""
min() { if [[ -z $1 ]] || (( $(echo "$2 < $1" | bc) )); then echo "$2"; else echo "$1"; fi; }
for ((i = 0; i < runs; i++)); do
  read -r w c <<<"$(tag=ref timed node "$repo/scripts/bench-parse/reference.mjs" "$work")"
  ref_wall=$(min "$ref_wall" "$w"); ref_cpu=$(min "$ref_cpu" "$c")
  read -r w c <<<"$(tag=airi timed "$work/airi" parse --jsonl)"
  airi_wall=$(min "$airi_wall" "$w"); airi_cpu=$(min "$airi_cpu" "$c")
done
ref_errors=$(grep -c '^{"error"' "$work/out-ref.jsonl" || true)
airi_errors=$(grep -c '^{"error"' "$work/out-airi.jsonl" || true)
out_lines=$(wc -l <"$work/out-airi.jsonl")

printf '%-26s %8s %8s %8s\n' pipeline "wall s" "cpu s" refusals
printf '%-26s %8s %8s %8s\n' "reference (node)" "$ref_wall" "$ref_cpu" "$ref_errors"
printf '%-26s %8s %8s %8s\n' "airi parse --jsonl" "$airi_wall" "$airi_cpu" "$airi_errors"
echo "output lines: $out_lines"
echo "throughput ratio (wall): $(echo "scale=1; $ref_wall / $airi_wall" | bc)x"
echo "cpu time ratio:          $(echo "scale=1; $ref_cpu / $airi_cpu" | bc)x"
