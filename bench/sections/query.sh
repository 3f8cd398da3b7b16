# The query section: `searchd serve` over the Rust docs index under wrk, replaying the fixed
# mix of 1,000 queries of bench/queries.txt (written by bench/queries.py) against the JSON API
# (bench/query.lua), at 1, 16 and 64 connections, then two crowds. Sourced by bench/run, which
# defines need, the ports, the builds and versus.
#
# Each build serves its own index: the index section's $work/index-store-BUILD; run alone, this
# section crawls and indexes the corpus first with that build, untimed. searchd runs with its
# defaults (16 searches at once, the rest wait). Each searchd started gets a warm-up at 16
# connections (5 s, or $BENCH_QUERY_SECONDS if shorter), then each row lasts
# $BENCH_QUERY_SECONDS (default 30). wrk shares the machine's cores with searchd: on 2 cores the
# figures are a floor. Target (issue 7): p99 ≤ 20 ms at ≥ 1,000 queries/s.
#
# The rows at 1, 16 and 64 connections ask flat out (each connection sends its next query as
# soon as the answer arrives), so their latency is mostly queueing: 16 clients at N queries/s
# wait about 16/N s each. The last two rows are crowds at a bounded rate: 64 users, then 128,
# each waiting $BENCH_QUERY_THINK_MS (default 55) after an answer: 64 is a little over 1,000
# queries/s in all (60 ms fell just short of 1,000), the load the target names; 128 asks twice
# that.
#
# Runs, in each of bench/run's rounds: the baseline as it is, then each of HEAD's variants
# (query_variants: searchd flags and a suffix for every query URL; "bm25" asks for plain BM25
# over the body, `&ranking=bm25`), each with a searchd of its own. The table groups the rows by
# load, then round, in that order. CPU µs/query: searchd's user + system time
# (/proc/PID/stat) over the row's run, divided by its answers. The HEAD / baseline columns
# divide each HEAD row by the baseline's row of the same load and round; a variant other than
# HEAD's default is compared too, but not listed as a regression.

# query_cpu_ticks PID: the process's user + system time, in clock ticks.
query_cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# query_run BUILD VARIANT FLAGS SUFFIX ROUND ORDER: one searchd of BUILD (started with FLAGS),
# every load of $query_loads against it with SUFFIX on each query URL; appends its rows to
# $work/query-rows.txt under their sort key (load, ROUND, ORDER).
query_run() {
    local build=$1 variant=$2 flags=$3 suffix=$4 round=$5 order=$6
    local bin name store="$work/index-store-$build" listen="127.0.0.1:$((port + 3))"
    bin=$(build_bin "$build")
    name=$(build_name "$build")
    [ "$variant" = default ] || name="$name, $variant"
    if [ ! -d "$store/index" ]; then
        rm -rf "$store"
        "$bin/crawler" crawl --data "$store" --seed "http://127.0.0.1:$port/" \
            --delay-ms 0 --host-concurrency 32 --allow-loopback >"$work/query-crawl-$build.out" 2>&1
        "$bin/indexer" build --data "$store" >"$work/query-build-$build.out" 2>&1
    fi
    local extra=()
    read -ra extra <<<"$flags"
    "$bin/searchd" serve --data "$store" --listen "$listen" "${extra[@]}" >"$work/searchd-$build.out" 2>&1 &
    local searchd=$!
    local tries=0
    until curl -fs "http://$listen/status" >/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ] || ! kill -0 $searchd 2>/dev/null; then
            echo "searchd did not start: see $work/searchd-$build.out" >&2
            kill $searchd 2>/dev/null || true
            return 1
        fi
        sleep 0.1
    done
    local docs
    docs=$(curl -fs "http://$listen/status?format=json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["docs"])')
    local warm=$((seconds < 5 ? seconds : 5))
    QUERY_SUFFIX=$suffix wrk -t 2 -c 16 -d "${warm}s" -s bench/query.lua "http://$listen" >"$work/query-warmup.out" 2>&1
    local flag=flag
    [ "$variant" = default ] || flag=noflag
    local clock load=0 spec connections think_ms threads label out before after result
    clock=$(getconf CLK_TCK)
    for spec in $query_loads; do
        load=$((load + 1))
        connections=${spec%:*} think_ms=${spec#*:}
        threads=$((connections < 2 ? 1 : 2))
        label=$connections
        [ "$think_ms" -gt 0 ] && label="$connections users, $think_ms ms think time"
        out="$work/query-$build-$variant-$round-c$connections-t$think_ms.out"
        before=$(query_cpu_ticks $searchd)
        QUERY_SUFFIX=$suffix THINK_MS=$think_ms wrk -t "$threads" -c "$connections" -d "${seconds}s" \
            --timeout 5s --latency -s bench/query.lua "http://$listen" >"$out" 2>&1
        after=$(query_cpu_ticks $searchd)
        # qps p50 p90 p99 max errors requests cpu_us
        result=$(grep '^RESULT' "$out" | awk -v t="$((after - before))" -v hz="$clock" '{
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "%d %.2f %.2f %.2f %.1f %d %d %.0f\n", v["qps"], v["p50_ms"], v["p90_ms"], v["p99_ms"],
                v["max_ms"], v["errors"], v["requests"], (v["requests"] > 0 ? t / hz * 1e6 / v["requests"] : 0)
        }')
        local qps p50 p90 p99 max errors requests cpu
        read -r qps p50 p90 p99 max errors requests cpu <<<"$result"
        printf '%s\t%s\t%s\t| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
            "$load" "$round" "$order" "$name" "$round" "$label" "$qps" "$p50" "$p90" "$p99" "$max" \
            "$errors" "$requests" "$cpu" \
            "$(versus query "$label" "$round" "$build" queries/s "$qps" higher $flag)" \
            "$(versus query "$label" "$round" "$build" "p99 ms" "$p99" lower $flag)" \
            "$(versus query "$label" "$round" "$build" "CPU µs/query" "$cpu" lower $flag)" \
            >>"$work/query-rows.txt"
    done
    local rss
    rss=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$searchd/status")
    kill $searchd
    wait $searchd 2>/dev/null || true
    echo "$name: $docs documents, peak RSS $rss MiB (round $round)" >>"$work/query-notes.txt"
}

# query_side_by_side SECONDS ROUNDS: the baseline and HEAD (answer cache off) served at once,
# each asked flat out by a wrk of its own (1 thread, 8 connections), ROUNDS times: the
# machine's speed, which drifts by a fifth between rows a minute apart, moves both alike, so
# their CPU per query compares within a few percent where the rows above differ by more.
# Prints a table; the ratio is also checked as a regression.
query_side_by_side() {
    local seconds=$1 rounds=$2 no_cache=$3
    local builds=(baseline head) pids=() listens=() i build bin clock
    clock=$(getconf CLK_TCK)
    for i in 0 1; do
        build=${builds[$i]}
        bin=$(build_bin "$build")
        listens[i]="127.0.0.1:$((port + 30 + i))"
        local extra=()
        { [ "$build" = head ] || [ "${BENCH_BASELINE_CACHE_OFF:-0}" = 1 ]; } && extra=(--config "$no_cache")
        "$bin/searchd" serve --data "$work/index-store-$build" --listen "${listens[$i]}" "${extra[@]}" \
            >"$work/searchd-side-$build.out" 2>&1 &
        pids[i]=$!
    done
    for i in 0 1; do
        local tries=0
        until curl -fs "http://${listens[$i]}/status" >/dev/null; do
            tries=$((tries + 1))
            if [ $tries -gt 100 ]; then
                echo "searchd did not start: see $work/searchd-side-${builds[$i]}.out" >&2
                kill "${pids[@]}" 2>/dev/null || true
                return 1
            fi
            sleep 0.1
        done
    done
    echo "| round | baseline CPU µs/query | HEAD CPU µs/query | baseline queries/s | HEAD queries/s | HEAD / baseline (CPU µs/query, lower is better) |"
    echo "|---|---|---|---|---|---|"
    local round before=() after=() waits=() cpu=() qps=()
    for round in $(seq 0 "$rounds"); do
        # Round 0 warms both up, untimed.
        local secs=$seconds
        [ "$round" = 0 ] && secs=$((seconds < 5 ? seconds : 5))
        for i in 0 1; do
            before[i]=$(query_cpu_ticks "${pids[$i]}")
            wrk -t 1 -c 8 -d "${secs}s" --timeout 5s -s bench/query.lua "http://${listens[$i]}" \
                >"$work/query-side-${builds[$i]}-$round.out" 2>&1 &
            waits[i]=$!
        done
        wait "${waits[@]}"
        [ "$round" = 0 ] && continue
        for i in 0 1; do
            after[i]=$(query_cpu_ticks "${pids[$i]}")
            read -r 'qps[i]' 'cpu[i]' < <(grep '^RESULT' "$work/query-side-${builds[$i]}-$round.out" |
                awk -v t="$((after[i] - before[i]))" -v hz="$clock" '{
                    for (j = 2; j <= NF; j++) { split($j, kv, "="); v[kv[1]] = kv[2] }
                    printf "%d %.0f\n", v["qps"], (v["requests"] > 0 ? t / hz * 1e6 / v["requests"] : 0)
                }')
        done
        versus query "side by side" "$round" baseline "CPU µs/query" "${cpu[0]}" lower >/dev/null
        echo "| $round | ${cpu[0]} | ${cpu[1]} | ${qps[0]} | ${qps[1]} | $(versus query "side by side" "$round" head "CPU µs/query" "${cpu[1]}" lower) |"
    done
    kill "${pids[@]}"
    wait "${pids[@]}" 2>/dev/null || true
}

query_section() {
    need wrk curl
    local seconds=${BENCH_QUERY_SECONDS:-30} think=${BENCH_QUERY_THINK_MS:-55}
    # The loads, CONNECTIONS:THINK_MS (0: flat out).
    local query_loads="1:0 16:0 64:0 64:$think 128:$think"
    # HEAD's variants, one each: NAME|SEARCHD FLAGS|SUFFIX OF EVERY QUERY URL. "default" is HEAD
    # with its answer cache off (`[searchd] answer_cache = 0`): every query searched, like the
    # baseline's, and the one whose regressions are listed. "cache on" keeps the default 1,000
    # answers: bench/queries.txt replays 1,000 queries in turn, so after the first pass most
    # are answered from the cache (real logs repeat less).
    local no_cache="$work/answer-cache-off.toml"
    printf '[searchd]\nanswer_cache = 0\n' >"$no_cache"
    # A baseline that has an answer cache too (any build from issue 40 on) is asked with it
    # off when BENCH_BASELINE_CACHE_OFF=1, so both search every query (the default baseline,
    # older, refuses the key).
    local baseline_flags=""
    [ "${BENCH_BASELINE_CACHE_OFF:-0}" = 1 ] && baseline_flags="--config $no_cache"
    local query_variants=(
        "default|--config $no_cache|"
        "bm25|--config $no_cache|&ranking=bm25"
        "cache on||"
    )
    : >"$work/query-rows.txt"
    : >"$work/query-notes.txt"
    local round i variant vname vflags vsuffix
    for round in $(seq "$rounds"); do
        query_run baseline default "$baseline_flags" "" "$round" 0
        i=0
        for variant in "${query_variants[@]}"; do
            i=$((i + 1))
            IFS='|' read -r vname vflags vsuffix <<<"$variant"
            query_run head "$vname" "$vflags" "$vsuffix" "$round" "$i"
        done
    done
    {
        echo "| build | round | connections | queries/s | p50 ms | p90 ms | p99 ms | max ms | errors | requests | CPU µs/query | HEAD / baseline (queries/s, higher is better) | HEAD / baseline (p99, lower is better) | HEAD / baseline (CPU µs/query, lower is better) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        sort -t $'\t' -k1,1n -k2,2n -k3,3n -s "$work/query-rows.txt" | cut -f 4-
        echo
        echo "$(wrk --version 2>&1 | head -n 1 | awk '{print $1, $2}'), ${seconds} s per row, queries of bench/queries.txt in turn at /api/search; rows grouped by load and round (each round ran baseline, then HEAD's variants: $(printf '%s, ' "${query_variants[@]%%|*}" | sed 's/, $//'))."
        echo
        sed 's/^/- /' "$work/query-notes.txt"
        echo
        echo "Side by side: the baseline and HEAD (answer cache off) served at once, each by its own wrk (1 thread, 8 connections, ${seconds} s per round), after a warm-up: drift moves both alike."
        echo
        query_side_by_side "$seconds" "$rounds" "$no_cache"
    } >"$work/query.md"
    cat "$work/query.md"
}
