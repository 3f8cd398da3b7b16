# The frontier section: 10 million synthetic URLs over 100,000 hosts through the crawler's
# own frontier and RocksDB store (crawler/benches/frontier_scale.rs, built by bench/run's
# build_all): enqueued twice each (the second push finds it seen), then dequeued in
# politeness order on a fake clock. Its last line holds the figures; it fails when a URL is
# lost, handed out twice or asked of its host too soon. Sourced by bench/run. $BENCH_FRONTIER_URLS and $BENCH_FRONTIER_HOSTS scale it down.

frontier_section() {
    local urls=${BENCH_FRONTIER_URLS:-10000000} hosts=${BENCH_FRONTIER_HOSTS:-100000}
    FRONTIER_URLS=$urls FRONTIER_HOSTS=$hosts TMPDIR=$work \
        "$frontier_bench" >"$work/frontier.out" 2>"$work/frontier.err" || true
    {
        echo "| URLs | hosts | enqueue s | dequeue s | URLs/s | peak RSS MiB | lost | handed out twice | too soon |"
        echo "|---|---|---|---|---|---|---|---|---|"
        grep '^frontier_scale ' "$work/frontier.out" | tail -n 1 | awk '{
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "| %d | %d | %.1f | %.1f | %.0f | %.0f | %d | %d | %d |\n", v["urls"], v["hosts"],
                v["enqueue_s"], v["dequeue_s"], v["urls_per_s"], v["peak_rss_kib"] / 1024,
                v["lost"], v["duplicates"], v["too_soon"]
        }'
        echo
        echo "crawler/benches/frontier_scale.rs: the real PageStore (RocksDB) and Frontier, every URL pushed twice, the default politeness (1 s per host) on a fake clock; URLs/s: URLs over both phases' seconds. Lost: never handed out; too soon: a request to a host less than its delay after the last."
    } >"$work/frontier.md"
    cat "$work/frontier.md"
}
