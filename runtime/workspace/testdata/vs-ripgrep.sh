#!/usr/bin/env bash
# Times grep's search over $(go env GOROOT)/src beside ripgrep's, on the same
# three patterns as BenchmarkGrepGOROOTAll (every match, no cap), alternating
# the two so that both see the same load. It prints the medians of the wall
# times and their ratio (grep / rg), and the CPU time (user + system) each
# spent per search, which a busy machine disturbs less.
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
runs=3 # searches per round, each side
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# rg searches what grep searches: hidden files too, and .gitignore files
# whether or not the tree is a git repository; its output goes to a file.
rgrun() { rg -n --hidden --no-require-git --no-config "$1" "$src" >"$tmp/out" || true; }
TIMEFORMAT='%U %S'

echo "$(rg --version | awk 'NR == 1'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds of $runs"
printf '%-8s %14s %14s %6s %14s %14s\n' pattern "grep ns/op" "rg ns" ratio "grep cpu s" "rg cpu s"
for i in "${!names[@]}"; do
	n=${names[$i]} p=${patterns[$i]}
	rgrun "$p" # warm the page cache
	: >"$tmp/ours"
	: >"$tmp/rg"
	: >"$tmp/ourcpu"
	: >"$tmp/rgcpu"
	for _ in $(seq "$rounds"); do
		{ time "$tmp/ws.test" -test.run '^$' -test.bench "GrepGOROOTAll/$n\$" -test.benchtime ${runs}x >"$tmp/bench"; } 2>"$tmp/t"
		awk '/ns\/op/ {print $3}' "$tmp/bench" >>"$tmp/ours"
		awk -v k=$runs '{printf "%.3f\n", ($1 + $2) / k}' "$tmp/t" >>"$tmp/ourcpu"
		for _ in $(seq $runs); do
			s=$(date +%s%N)
			{ time rgrun "$p"; } 2>"$tmp/t"
			e=$(date +%s%N)
			echo $((e - s)) >>"$tmp/rg"
			awk '{printf "%.3f\n", $1 + $2}' "$tmp/t" >>"$tmp/rgcpu"
		done
	done
	ours=$(median <"$tmp/ours")
	theirs=$(median <"$tmp/rg")
	printf '%-8s %14s %14s %6s %14s %14s\n' "$n" "$ours" "$theirs" \
		"$(awk -v a="$ours" -v b="$theirs" 'BEGIN {printf "%.2f", a / b}')" \
		"$(median <"$tmp/ourcpu")" "$(median <"$tmp/rgcpu")"
done
