#!/bin/bash
# CPU samples of each contender's timed closure in one query-benchmark scenario, for
# comparisons on a busy machine (wall-clock times swing with other processes; on-CPU samples
# much less). Usage, from Benchmarks/ after a release build:
#   Scripts/cpu-per-contender.sh .build/release/NimbusQueryBenchmarkReport singleSaves 11
# Prints {closure number: samples}; the closures are the scenario's QueryCase closures in
# source order (for singleSaves: 2 = Nimbus's run, 5 = raw C's, 8 = GRDB's).
set -euo pipefail
binary=$1 scenario=$2 runs=$3
data=$(mktemp) text=$(mktemp)
trap 'rm -f "$data" "$text"' EXIT
perf record -q -F 1999 --call-graph dwarf,16384 -o "$data" "$binary" --only "$scenario" --runs "$runs" > /dev/null 2>&1
perf script -i "$data" 2>/dev/null | swift demangle --simplified > "$text"
python3 - "$scenario" "$text" <<'PY'
import collections, re, sys
scenario, path = sys.argv[1], sys.argv[2]
counts = collections.Counter()
for stack in open(path).read().split('\n\n'):
    ids = re.findall(r'closure #(\d+) in closure #1 in variable initialization expression of static QueryScenario\.' + scenario + r'\b', stack) \
        or re.findall(r'closure #(\d+) in closure #1 in static QueryScenario\.\w+', stack)
    if ids:
        counts[ids[-1]] += 1
print(dict(sorted(counts.items(), key=lambda item: int(item[0]))))
PY
