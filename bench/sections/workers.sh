# The workers section (issue 22): the distributed crawl's cost against the single-machine
# crawl, in one run. The corpus split by its top directories into as many hosts: the book
# at book.docs.test/book/, core at core.docs.test/core/ ... (every host on 127.0.0.1, served
# by one nginx server that answers any name), each seeded at its index.html and scoped to
# its directory, so no page is crawled under two names: about 20 hosts of very different
# sizes, which `crawler worker` spreads over 64 partitions.
#
# Rows: `crawler crawl` (one process, no Redis), then `crawler worker` with 1, 2 and 4
# worker processes over one DIR and one Debian redis-server (unix socket, append-only file
# synced every second), all with delay 0, 4 requests in flight per host, 32 per process.
# CPU s is the sum over the worker processes (user + system), Redis's own CPU apart; Redis
# commands are the server's count (INFO stats) over the run; pages are the stores' sum.
# Overhead: CPU per page against the single crawl's. Links from one directory to another
# fall outside the scope: no link crosses partitions here (the end-to-end tests' web sends
# one page in ten across).

workers_section() {
    need redis-server
    local config="$work/workers.toml" seeds="$work/workers-seeds.txt"
    workers_split_corpus "$config" "$seeds"

    {
        echo "| run | HTML pages | seconds | pages/s | CPU s | CPU ms / page | overhead | Redis commands / page | Redis CPU s | peak RSS MiB (largest process) |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
    } >"$work/workers.md"

    rm -rf "$work/workers-single"
    local figures pages single_ms
    figures=$(measure workers-single target/release/crawler crawl --data "$work/workers-single" \
        --seeds "$seeds" "${workers_scope[@]}" --config "$config")
    pages=$(target/release/crawler status --data "$work/workers-single" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["pages_stored"])')
    single_ms=$(awk -v p="$pages" -v f="$figures" 'BEGIN { split(f, m, " "); printf "%.3f", m[2] * 1000 / p }')
    awk -v p="$pages" -v f="$figures" -v ms="$single_ms" 'BEGIN { split(f, m, " ");
        printf "| crawler crawl (no Redis) | %d | %.1f | %.0f | %.1f | %.3f | 1.00 | - | - | %.0f |\n",
            p, m[1], p / m[1], m[2], ms, m[3] / 1024 }' >>"$work/workers.md"

    local count
    for count in 1 2 4; do
        workers_run "$count" "$config" "$seeds" "$single_ms"
    done
    {
        echo
        echo "$((${#workers_scope[@]} / 2)) hosts, one per top directory of the corpus (DIR.docs.test:$workers_port/DIR/, scoped to it); 64 partitions. No link crosses hosts within the scopes, so none crosses partitions here (the end-to-end tests' web sends one page in ten across)."
    } >>"$work/workers.md"
    cat "$work/workers.md"
}

# workers_split_corpus CONFIG SEEDS: writes the crawl's config (every DIR.docs.test on
# 127.0.0.1, no delay) and its seeds, and sets workers_scope to the --scope flags.
workers_split_corpus() {
    local config=$1 seeds=$2 dirs dir host
    mapfile -t dirs < <(cd "$corpus" && for dir in */; do
        [ -f "${dir}index.html" ] && echo "${dir%/}"
    done)
    workers_scope=()
    : >"$seeds"
    {
        echo "[crawler]"
        echo "allow_loopback = true"
        echo "delay_ms = 0"
        echo "host_concurrency = 4"
        echo "max_in_flight = 32"
        echo "ip_concurrency = 0"
        echo "[crawler.resolve]"
        for dir in "${dirs[@]}"; do
            host="${dir//_/-}.docs.test"
            echo "\"$host\" = \"127.0.0.1\""
            echo "http://$host:$workers_port/$dir/index.html" >>"$seeds"
            workers_scope+=(--scope "http://$host:$workers_port/$dir/")
        done
    } >"$config"
}

# workers_run COUNT CONFIG SEEDS SINGLE_MS: one row, COUNT worker processes (the first with
# the seeds and the scope, which make the crawl).
workers_run() {
    local count=$1 config=$2 seeds=$3 single_ms=$4
    local dir="$work/workers-$count"
    rm -rf "$dir"
    mkdir -p "$dir/redis"
    redis-server --port 0 --unixsocket "$dir/redis/redis.sock" --unixsocketperm 700 \
        --save "" --appendonly yes --appendfsync everysec --dir "$dir/redis" --daemonize yes \
        --pidfile "$dir/redis/redis.pid" >/dev/null
    local sock="$dir/redis/redis.sock" n=0
    until redis-cli -s "$sock" ping >/dev/null 2>&1; do
        sleep 0.1
        n=$((n + 1))
        [ $n -lt 100 ] || { echo "redis-server did not start" >&2; return 1; }
    done
    local before started
    before=$(redis-cli -s "$sock" info stats | awk -F: '/^total_commands_processed/ {print $2+0}')
    started=$(date +%s.%N)
    local pids=() w
    for w in $(seq 1 "$count"); do
        local extra=()
        [ "$w" -eq 1 ] && extra=(--seeds "$seeds" "${workers_scope[@]}" --partitions 64)
        measure "workers-$count-$w" target/release/crawler worker --redis "unix://$sock" \
            --data "$dir/data" --config "$config" "${extra[@]}" >"$dir/worker-$w.figures" &
        pids+=($!)
    done
    wait "${pids[@]}"
    local elapsed
    elapsed=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    local after redis_cpu
    after=$(redis-cli -s "$sock" info stats | awk -F: '/^total_commands_processed/ {print $2+0}')
    redis_cpu=$(redis-cli -s "$sock" info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.1f", s}')
    redis-cli -s "$sock" shutdown nosave >/dev/null 2>&1 || true
    local pages=0 p
    for p in "$dir"/data/partitions/p-*; do
        pages=$((pages + $(target/release/crawler status --data "$p" --json |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["pages_stored"])')))
    done
    cat "$dir"/worker-*.figures | awk -v c="$count" -v p="$pages" -v e="$elapsed" -v cmds="$((after - before))" \
        -v rc="$redis_cpu" -v single="$single_ms" '
        { cpu += $2; if ($3 > rss) rss = $3 }
        END {
            ms = cpu * 1000 / p
            printf "| crawler worker x %d | %d | %.1f | %.0f | %.1f | %.3f | %.2f | %.2f | %s | %.0f |\n",
                c, p, e, p / e, cpu, ms, ms / single, cmds / p, rc, rss / 1024
        }' >>"$work/workers.md"
}
