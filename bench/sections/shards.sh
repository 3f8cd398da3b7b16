# The shards section (issue 22): searchd over 8 index shards against searchd over one index
# of the same pages, under the query section's load (64 users, each waiting
# $BENCH_QUERY_THINK_MS after an answer: a little over 1,000 queries/s offered), then under a
# lighter one ($BENCH_SHARDS_LIGHT_THINK_MS, about 500 queries/s). The pages: the
# workers section's split of the corpus into hosts, crawled once into one store by
# `crawler crawl` and once by a `crawler worker` into 8 partitions (one redis-server), each
# indexed by `indexer build` (one index; one shard per partition). Sourced by bench/run,
# which defines need, measure, the builds and the nginx server; uses workers_split_corpus.
#
# Each build crawls and indexes its own stores with its own programs. The baseline (6a51d25)
# has no `crawler worker`, so no shards: its one-index rows run, its 8-shard rows say n/a
# (once). Per load, in each of bench/run's rounds: baseline one index, HEAD one index, HEAD 8
# shards. HEAD / baseline compares the p99 of the same index kind, load and round. The judged
# queries' top 10 at the end are HEAD's, one index against 8 shards.

shards_section() {
    need wrk curl redis-server
    local seconds=${BENCH_QUERY_SECONDS:-30} think=${BENCH_QUERY_THINK_MS:-55}
    local light=${BENCH_SHARDS_LIGHT_THINK_MS:-120}
    local config="$work/shards.toml" seeds="$work/shards-seeds.txt"
    workers_split_corpus "$config" "$seeds"
    local build bin one many
    for build in $builds; do
        bin=$(build_bin "$build")
        one="$work/shards-one-$build" many="$work/shards-8-$build"
        rm -rf "$one" "$many"
        "$bin/crawler" crawl --data "$one" --seeds "$seeds" "${workers_scope[@]}" \
            --config "$config" >"$work/shards-crawl-one-$build.out" 2>&1
        "$bin/indexer" build --data "$one" >"$work/shards-build-one-$build.out" 2>&1
        lacks "$build" worker >/dev/null && continue
        mkdir -p "$many/redis"
        redis-server --port 0 --unixsocket "$many/redis/redis.sock" --unixsocketperm 700 \
            --save "" --appendonly no --dir "$many/redis" --daemonize yes >/dev/null
        until redis-cli -s "$many/redis/redis.sock" ping >/dev/null 2>&1; do sleep 0.1; done
        "$bin/crawler" worker --redis "unix://$many/redis/redis.sock" --data "$many" \
            --seeds "$seeds" "${workers_scope[@]}" --partitions 8 --config "$config" \
            >"$work/shards-crawl-8-$build.out" 2>&1
        redis-cli -s "$many/redis/redis.sock" shutdown nosave >/dev/null 2>&1 || true
        "$bin/indexer" build --data "$many" >"$work/shards-build-8-$build.out" 2>&1
    done
    {
        echo "| index | build | round | documents | shards | think ms | queries/s | p50 ms | p90 ms | p99 ms | max ms | errors | HEAD / baseline (p99, lower is better) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >"$work/shards.md"
    local round wait missing
    # Each build in turn, twice: this machine's speed drifts within minutes. Then a lighter
    # load that neither saturates, where the p99 is a query's work, not a queue.
    for wait in "$think" "$light"; do
        for round in $(seq "$rounds"); do
            for build in $builds; do
                shards_serve "$build" "one index" "$work/shards-one-$build" "$seconds" "$wait" "$round"
                if missing=$(lacks "$build" worker); then
                    if [ "$round" -eq 1 ] && [ "$wait" = "$think" ]; then
                        na_row 13 "8 shards | $(build_name "$build") | all" "$missing" >>"$work/shards.md"
                    fi
                    continue
                fi
                shards_serve "$build" "8 shards" "$work/shards-8-$build" "$seconds" "$wait" "$round"
            done
        done
    done
    {
        echo
        echo "64 users, ${think} ms think time (then ${light} ms), ${seconds} s a row, the queries of bench/queries.txt at /api/search; in each round each build's indexes in turn."
        echo
        shards_compare "$work/shards-one-head" "$work/shards-8-head"
    } >>"$work/shards.md"
    cat "$work/shards.md"
}

# shards_serve BUILD KIND DATA SECONDS THINK_MS ROUND: one row, BUILD's searchd serve over
# DATA (KIND: "one index" or "8 shards").
shards_serve() {
    local build=$1 kind=$2 data=$3 seconds=$4 think=$5 round=$6 listen="127.0.0.1:$((port + 4))" bin
    bin=$(build_bin "$build")
    # HEAD with its answer cache off, as the query section's default row: the baseline has
    # none, and bench/queries.txt replays 1,000 queries, so a cache would answer most rows.
    local flags=()
    if [ "$build" = head ]; then
        printf '[searchd]\nanswer_cache = 0\n' >"$work/shards-cache-off.toml"
        flags=(--config "$work/shards-cache-off.toml")
    fi
    "$bin/searchd" serve --data "$data" --listen "$listen" "${flags[@]}" >"$work/shards-searchd.out" 2>&1 &
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
    local line
    line=$(grep '^RESULT' "$work/shards-wrk.out" | awk -v k="$kind" -v b="$(build_name "$build")" -v n="$round" \
        -v d="$docs" -v s="$shards" -v t="$think" '{
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "| %s | %s | %s | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.1f | %d |",
            k, b, n, d, s, t, v["qps"], v["p50_ms"], v["p90_ms"], v["p99_ms"], v["max_ms"], v["errors"]
    }')
    echo "$line $(versus shards "$kind, $think ms think time" "$round" "$build" "p99 ms" "$(cell "$line" 10)" lower) |" >>"$work/shards.md"
    kill $searchd
    wait $searchd 2>/dev/null || true
}

# shards_compare ONE MANY: the judged queries of bench/relevance on searchd over each, their
# top 10 side by side (bench/shards_compare.py).
shards_compare() {
    local one=$1 many=$2 a="127.0.0.1:$((port + 4))" b="127.0.0.1:$((port + 8))"
    "$head_bin/searchd" serve --data "$one" --listen "$a" >"$work/shards-one.out" 2>&1 &
    local first=$!
    "$head_bin/searchd" serve --data "$many" --listen "$b" >"$work/shards-8.out" 2>&1 &
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
