#!/usr/bin/env bash
# Issue 39's speed check: index build and query CPU of two builds of sift on the same store, in
# the same run, interleaved (this machine's speed drifts 2x between days: only same-run ratios
# count).
#
#   bench/languages/speed.sh BASE_DIR NEW_DIR DOCS [WORK]
#
# BASE_DIR and NEW_DIR hold the release binaries `searchd` and `indexer` of each build. DOCS
# is a directory of HTML (the Rust docs: `$(rustc --print sysroot)/share/doc/rust/html`, or a
# multilingual corpus). The first run crawls DOCS once with NEW's `searchd demo` (into
# WORK/demo, kept for the next run); each build then indexes that store into a directory of
# its own (`indexer build --full`, ROUNDS times, alternating), and serves it while wrk replays
# bench/queries.txt (QUERIES=FILE for another list) for QUERY_SECONDS at 4 connections,
# ROUNDS times alternating; searchd's CPU time (utime + stime from /proc) over the number of
# answers is its CPU per query. Prints one table; figures in WORK/*.out.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=$(realpath "$1") new=$(realpath "$2") docs=$3
work=${4:-/tmp/sift-lang-speed}
rounds=${ROUNDS:-3}
seconds=${QUERY_SECONDS:-20}
queries=${QUERIES:-bench/queries.txt}
port=${PORT:-18400}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
mkdir -p "$work"

if [ ! -d "$work/demo/store" ]; then
    "$new/searchd" demo --docs "$docs" --data "$work/demo" --listen "127.0.0.1:$port" \
        >"$work/demo.out" 2>&1 &
    demo=$!
    until grep -q "Search is ready" "$work/demo.out"; do
        kill -0 $demo 2>/dev/null || { echo "the demo stopped: $work/demo.out" >&2; exit 1; }
        sleep 1
    done
    kill $demo; wait $demo 2>/dev/null || true
fi
for build in base new; do
    mkdir -p "$work/$build"
    [ -e "$work/$build/store" ] || ln -s "$work/demo/store" "$work/$build/store"
done

bin() { if [ "$1" = base ]; then echo "$base"; else echo "$new"; fi; }
cpu_secs() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }

declare -A build_wall build_cpu query_cpu query_n
for round in $(seq "$rounds"); do
    for build in base new; do
        /usr/bin/time -f "%e %U %S" -o "$work/$build-build-$round.time" \
            "$(bin $build)/indexer" build --full --data "$work/$build" >"$work/$build-build-$round.out" 2>&1
        read -r wall user sys <"$work/$build-build-$round.time"
        build_wall[$build]="${build_wall[$build]:-} $wall"
        build_cpu[$build]="${build_cpu[$build]:-} $(echo "$user + $sys" | bc)"
    done
done
export QUERIES=$queries
for round in $(seq "$rounds"); do
    for build in base new; do
        listen="127.0.0.1:$((port + 1))"
        "$(bin $build)/searchd" serve --data "$work/$build" --listen "$listen" >"$work/$build-serve.out" 2>&1 &
        server=$!
        until curl -fs "http://$listen/status" >/dev/null; do sleep 0.2; done
        wrk -t 2 -c 4 -d 3s -s bench/query.lua "http://$listen" >/dev/null 2>&1
        before=$(cpu_secs $server)
        wrk -t 2 -c 4 -d "${seconds}s" -s bench/query.lua "http://$listen" >"$work/$build-wrk-$round.out" 2>&1
        after=$(cpu_secs $server)
        kill $server; wait $server 2>/dev/null || true
        answers=$(awk '/requests in/ { print $1 }' "$work/$build-wrk-$round.out")
        query_cpu[$build]="${query_cpu[$build]:-} $(echo "scale=4; ($after - $before) * 1000000 / $answers" | bc)"
        query_n[$build]="${query_n[$build]:-} $answers"
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
docs_indexed=$(grep -ho 'indexed [0-9,]* documents\|[0-9,]* documents' "$work/new-build-1.out" | head -1 || true)
echo "| figure | base | new | new / base |"
echo "|---|---|---|---|"
for pair in "build wall s:build_wall" "build CPU s:build_cpu" "query CPU µs:query_cpu"; do
    label=${pair%%:*} name=${pair#*:}
    declare -n values=$name
    b=$(echo "${values[base]}" | median) n=$(echo "${values[new]}" | median)
    printf "| %s (median of %s) | %s | %s | %.2fx |\n" "$label" "$rounds" "$b" "$n" "$(echo "$n / $b" | bc -l)"
done
echo
echo "each round: build CPU base [${build_cpu[base]} ] new [${build_cpu[new]} ];" \
    "query CPU µs base [${query_cpu[base]} ] new [${query_cpu[new]} ]; answers base [${query_n[base]} ] new [${query_n[new]} ]"
echo "store: $work/demo ($docs_indexed)"
