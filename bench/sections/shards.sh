# The shards section (issue 22): searchd over 8 index shards against searchd over one index
# of the same pages, under the query section's load (64 users, each waiting
# $BENCH_QUERY_THINK_MS after an answer: a little over 1,000 queries/s offered), then under a
# lighter one ($BENCH_SHARDS_LIGHT_THINK_MS, about 500 queries/s). The pages: the
# workers section's split of the corpus into hosts, crawled once into one store by
# `crawler crawl` and once by a `crawler worker` into 8 partitions (one redis-server), each
# indexed by `indexer build` (one index; one shard per partition). Sourced by bench/run,
# which defines need, measure and the nginx server; uses workers_split_corpus.

shards_section() {
    need wrk curl redis-server
    local seconds=${BENCH_QUERY_SECONDS:-30} think=${BENCH_QUERY_THINK_MS:-55}
    local light=${BENCH_SHARDS_LIGHT_THINK_MS:-120}
    local config="$work/shards.toml" seeds="$work/shards-seeds.txt"
    workers_split_corpus "$config" "$seeds"
    local one="$work/shards-one" many="$work/shards-8"
    rm -rf "$one" "$many"
    target/release/crawler crawl --data "$one" --seeds "$seeds" "${workers_scope[@]}" \
        --config "$config" >"$work/shards-crawl-one.out" 2>&1
    mkdir -p "$many/redis"
    redis-server --port 0 --unixsocket "$many/redis/redis.sock" --unixsocketperm 700 \
        --save "" --appendonly no --dir "$many/redis" --daemonize yes >/dev/null
    until redis-cli -s "$many/redis/redis.sock" ping >/dev/null 2>&1; do sleep 0.1; done
    target/release/crawler worker --redis "unix://$many/redis/redis.sock" --data "$many" \
        --seeds "$seeds" "${workers_scope[@]}" --partitions 8 --config "$config" \
        >"$work/shards-crawl-8.out" 2>&1
    redis-cli -s "$many/redis/redis.sock" shutdown nosave >/dev/null 2>&1 || true
    target/release/indexer build --data "$one" >"$work/shards-build-one.out" 2>&1
    target/release/indexer build --data "$many" >"$work/shards-build-8.out" 2>&1
    {
        echo "| index | documents | shards | think ms | queries/s | p50 ms | p90 ms | p99 ms | max ms | errors |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
    } >"$work/shards.md"
    local round data wait
    # Twice each, one after the other: this machine's speed drifts within minutes. Then a
    # lighter load that neither saturates, where the p99 is a query's work, not a queue.
    for wait in "$think" "$light"; do
        for round in 1 2; do
            for data in "$one" "$many"; do
                shards_serve "$data" "$seconds" "$wait"
            done
        done
    done
    {
        echo
        echo "64 users, ${think} ms think time (then ${light} ms), ${seconds} s a row, the queries of bench/queries.txt at /api/search; the two indexes in turn, twice."
        echo
        shards_compare "$one" "$many"
    } >>"$work/shards.md"
    cat "$work/shards.md"
}

# shards_serve DATA SECONDS THINK_MS: one row, searchd serve over DATA.
shards_serve() {
    local data=$1 seconds=$2 think=$3 listen="127.0.0.1:$((port + 4))"
    target/release/searchd serve --data "$data" --listen "$listen" >"$work/shards-searchd.out" 2>&1 &
    local searchd=$! tries=0
    until curl -fs "http://$listen/status" >/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ] || ! kill -0 $searchd 2>/dev/null; then
            echo "searchd did not start: see $work/shards-searchd.out" >&2
            return 1
        fi
        sleep 0.1
    done
    local docs shards
    docs=$(curl -fs "http://$listen/status?format=json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["docs"])')
    shards=$(find "$data" -path '*/index/CURRENT' | wc -l)
    wrk -t 2 -c 16 -d 5s -s bench/query.lua "http://$listen" >/dev/null 2>&1
    THINK_MS=$think wrk -t 2 -c 64 -d "${seconds}s" --timeout 5s --latency \
        -s bench/query.lua "http://$listen" >"$work/shards-wrk.out" 2>&1
    grep '^RESULT' "$work/shards-wrk.out" | awk -v d="$docs" -v s="$shards" -v n="$(basename "$data")" -v t="$think" '{
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "| %s | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.1f | %d |\n",
            n, d, s, t, v["qps"], v["p50_ms"], v["p90_ms"], v["p99_ms"], v["max_ms"], v["errors"]
    }' >>"$work/shards.md"
    kill $searchd
    wait $searchd 2>/dev/null || true
}

# shards_compare ONE MANY: the judged queries of bench/relevance on searchd over each, their
# top 10 side by side (bench/shards_compare.py).
shards_compare() {
    local one=$1 many=$2 a="127.0.0.1:$((port + 4))" b="127.0.0.1:$((port + 6))"
    target/release/searchd serve --data "$one" --listen "$a" >"$work/shards-one.out" 2>&1 &
    local first=$!
    target/release/searchd serve --data "$many" --listen "$b" >"$work/shards-8.out" 2>&1 &
    local second=$! tries=0
    until curl -fs "http://$a/status" >/dev/null && curl -fs "http://$b/status" >/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ]; then
            echo "searchd did not start: see $work/shards-one.out and shards-8.out" >&2
            kill $first $second 2>/dev/null || true
            return 1
        fi
        sleep 0.1
    done
    echo "The judged queries of bench/relevance/judgments.toml on both (the one index's pages and the shards' come from two crawls: see docs/SCALING.md):"
    echo
    echo '```'
    python3 bench/shards_compare.py "http://$a" "http://$b" bench/relevance/judgments.toml
    echo '```'
    kill $first $second
    wait $first $second 2>/dev/null || true
}
