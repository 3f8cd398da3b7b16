# The frontier section: 10 million synthetic URLs over 100,000 hosts through the crawler's
# own frontier and RocksDB store (crawler/benches/frontier_scale.rs, built by bench/run's
# build_tree as each build's frontier_scale): enqueued twice each (the second push finds it
# seen), then dequeued in politeness order on a fake clock. Its last line holds the figures; it
# fails when a URL is lost, handed out twice or asked of its host too soon. Sourced by
# bench/run. $BENCH_FRONTIER_URLS and $BENCH_FRONTIER_HOSTS scale it down. Each build's bench
# runs once per round (baseline, HEAD, ...); HEAD / baseline compares URLs/s within a round. A
# build whose programs came from a directory without frontier_scale (BENCH_*_BIN) gets an n/a
# row.

frontier_section() {
    local urls=${BENCH_FRONTIER_URLS:-10000000} hosts=${BENCH_FRONTIER_HOSTS:-100000}
    {
        echo "| build | round | URLs | hosts | enqueue s | dequeue s | URLs/s | peak RSS MiB | lost | handed out twice | too soon | HEAD / baseline (URLs/s, higher is better) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >"$work/frontier.md"
    local round build missing line
    for round in $(seq "$rounds"); do
        for build in $builds; do
            if missing=$(lacks "$build" frontier); then
                [ "$round" -eq 1 ] && na_row 12 "$(build_name "$build") | all" "$missing" >>"$work/frontier.md"
                continue
            fi
            FRONTIER_URLS=$urls FRONTIER_HOSTS=$hosts TMPDIR=$work \
                "$(build_bin "$build")/frontier_scale" >"$work/frontier-$build-$round.out" 2>"$work/frontier-$build-$round.err" || true
            line=$(grep '^frontier_scale ' "$work/frontier-$build-$round.out" | tail -n 1 | awk -v b="$(build_name "$build")" -v n="$round" '{
                for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                printf "| %s | %s | %d | %d | %.1f | %.1f | %.0f | %.0f | %d | %d | %d |", b, n, v["urls"], v["hosts"],
                    v["enqueue_s"], v["dequeue_s"], v["urls_per_s"], v["peak_rss_kib"] / 1024,
                    v["lost"], v["duplicates"], v["too_soon"]
            }')
            if [ -z "$line" ]; then
                versus frontier "$urls URLs" "$round" "$build" URLs/s n/a higher >/dev/null
                na_row 12 "$(build_name "$build") | $round" "no figures: see $work/frontier-$build-$round.err" >>"$work/frontier.md"
                continue
            fi
            echo "$line $(versus frontier "$urls URLs" "$round" "$build" URLs/s "$(cell "$line" 7)" higher) |" >>"$work/frontier.md"
        done
    done
    {
        echo
        echo "crawler/benches/frontier_scale.rs: the real PageStore (RocksDB) and Frontier, every URL pushed twice, the default politeness (1 s per host) on a fake clock; URLs/s: URLs over both phases' seconds. Lost: never handed out; too soon: a request to a host less than its delay after the last."
    } >>"$work/frontier.md"
    cat "$work/frontier.md"
}
