#!/usr/bin/env bash
# Times grep's search over $(go env GOROOT)/src beside ripgrep's, on the same
# three patterns as BenchmarkGrepGOROOTAll, alternating the two so that both
# see the same load, and prints the medians and their ratio (ours / rg).
#
# Usage, from the repository root: runtime/workspace/testdata/vs-ripgrep.sh [rounds]
# Needs rg (apt-get install ripgrep); for measuring only, nothing else uses it.
set -euo pipefail
rounds=${1:-5}
src="$(go env GOROOT)/src"
command -v rg >/dev/null || { echo "rg is not on PATH (apt-get install ripgrep)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/ws.test" ./runtime/workspace/

names=(literal rare many)
patterns=('func \(\w+ \*\w+\) Close\(\) error' 'agenttui_no_such_text' 'err != nil')
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# rg searches what grep searches: hidden files too, and .gitignore files
# whether or not the tree is a git repository; its output goes to a file.
rgrun() { rg -n --hidden --no-require-git --no-config "$1" "$src" >"$tmp/out" || true; }

echo "$(rg --version | head -1), $(nproc) cores, $rounds rounds"
printf '%-8s %16s %16s %7s\n' pattern "grep ns/op" "rg ns" ratio
for i in "${!names[@]}"; do
	n=${names[$i]} p=${patterns[$i]}
	rgrun "$p" # warm the page cache
	: >"$tmp/ours"
	: >"$tmp/rg"
	for _ in $(seq "$rounds"); do
		"$tmp/ws.test" -test.run '^$' -test.bench "GrepGOROOTAll/$n\$" -test.benchtime 3x |
			awk '/ns\/op/ {print $3}' >>"$tmp/ours"
		for _ in 1 2 3; do
			s=$(date +%s%N)
			rgrun "$p"
			e=$(date +%s%N)
			echo $((e - s)) >>"$tmp/rg"
		done
	done
	ours=$(median <"$tmp/ours")
	theirs=$(median <"$tmp/rg")
	printf '%-8s %16s %16s %7s\n' "$n" "$ours" "$theirs" "$(awk -v a="$ours" -v b="$theirs" 'BEGIN {printf "%.2f", a / b}')"
done
