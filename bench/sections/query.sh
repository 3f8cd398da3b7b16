# The query section: `searchd serve` over the Rust docs index under wrk, replaying the fixed
# mix of 1,000 queries of bench/queries.txt (written by bench/queries.py) against the JSON API
# (bench/query.lua), at 1, 16 and 64 connections. Sourced by bench/run, which defines need and
# the ports.
#
# The index is the index section's ($work/index-store); run alone, this section crawls and
# indexes the corpus first, untimed. searchd runs with its defaults (16 searches at once, the
# rest wait). A 5 s warm-up at 16 connections first, then each run lasts $BENCH_QUERY_SECONDS
# (default 30). wrk shares the machine's cores with searchd: on 2 cores the figures are a
# floor. Target (issue 7): p99 ≤ 20 ms at ≥ 1,000 queries/s.
#
# The rows at 1, 16 and 64 connections ask flat out (each connection sends its next query as
# soon as the answer arrives), so their latency is mostly queueing: 16 clients at N queries/s
# wait about 16/N s each. The last row is a crowd at a bounded rate: 64 users, each waiting
# $BENCH_QUERY_THINK_MS (default 55) after an answer, a little over 1,000 queries/s in all
# (60 ms fell just short of 1,000), the load the target names.

query_section() {
    need wrk curl
    local store="$work/index-store" listen="127.0.0.1:$((port + 3))"
    local seconds=${BENCH_QUERY_SECONDS:-30}
    if [ ! -d "$store/index" ]; then
        rm -rf "$store"
        target/release/crawler crawl --data "$store" --seed "http://127.0.0.1:$port/" \
            --delay-ms 0 --host-concurrency 32 --allow-loopback >"$work/query-crawl.out" 2>&1
        target/release/indexer build --data "$store" >"$work/query-build.out" 2>&1
    fi
    target/release/searchd serve --data "$store" --listen "$listen" >"$work/searchd.out" 2>&1 &
    local searchd=$!
    local tries=0
    until curl -fs "http://$listen/status" >/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ] || ! kill -0 $searchd 2>/dev/null; then
            echo "searchd did not start: see $work/searchd.out" >&2
            kill $searchd 2>/dev/null || true
            return 1
        fi
        sleep 0.1
    done
    local docs
    docs=$(curl -fs "http://$listen/status?format=json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["docs"])')

    {
        echo "| connections | queries/s | p50 ms | p90 ms | p99 ms | max ms | errors | requests |"
        echo "|---|---|---|---|---|---|---|---|"
    } >"$work/query.md"
    wrk -t 2 -c 16 -d 5s -s bench/query.lua "http://$listen" >"$work/query-warmup.out" 2>&1
    local think=${BENCH_QUERY_THINK_MS:-55}
    local run connections think_ms threads label
    for run in 1:0 16:0 64:0 "64:$think"; do
        connections=${run%:*} think_ms=${run#*:}
        threads=$((connections < 2 ? 1 : 2))
        label=$connections
        [ "$think_ms" -gt 0 ] && label="$connections users, $think_ms ms think time"
        THINK_MS=$think_ms wrk -t "$threads" -c "$connections" -d "${seconds}s" --timeout 5s --latency \
            -s bench/query.lua "http://$listen" >"$work/query-c$connections-t$think_ms.out" 2>&1
        grep '^RESULT' "$work/query-c$connections-t$think_ms.out" | awk -v c="$label" '{
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "| %s | %d | %.2f | %.2f | %.2f | %.1f | %d | %d |\n",
                c, v["qps"], v["p50_ms"], v["p90_ms"], v["p99_ms"], v["max_ms"], v["errors"], v["requests"]
        }' >>"$work/query.md"
    done
    local rss
    rss=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$searchd/status")
    kill $searchd
    wait $searchd 2>/dev/null || true
    {
        echo
        echo "searchd over $docs documents, peak RSS $rss MiB; $(wrk --version 2>&1 | head -n 1 | awk '{print $1, $2}'), ${seconds} s per row, queries of bench/queries.txt in turn at /api/search."
    } >>"$work/query.md"
    cat "$work/query.md"
}
