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
#
# In each of bench/run's rounds: the single crawl by each build (baseline, HEAD), each into a
# store of its own, then the worker runs by each build that has `crawler worker` (the
# baseline, 6a51d25, has not: its rows say n/a, once). Overhead: against the same build's
# single crawl of the same round. HEAD / baseline compares CPU ms / page within a round.

workers_section() {
    need redis-server
    local config="$work/workers.toml" seeds="$work/workers-seeds.txt"
    workers_split_corpus "$config" "$seeds"

    {
        echo "| run | build | round | HTML pages | seconds | pages/s | CPU s | CPU ms / page | overhead | Redis commands / page | Redis CPU s | peak RSS MiB (largest process) | HEAD / baseline (CPU ms / page, lower is better) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >"$work/workers.md"

    local round build bin figures pages count missing
    local -A single_cpu_ms
    for round in $(seq "$rounds"); do
        for build in $builds; do
            bin=$(build_bin "$build")
            rm -rf "$work/workers-single-$build"
            figures=$(measure "workers-single-$build-$round" "$bin/crawler" crawl --data "$work/workers-single-$build" \
                --seeds "$seeds" "${workers_scope[@]}" --config "$config")
            pages=$("$bin/crawler" status --data "$work/workers-single-$build" --json |
                python3 -c 'import json,sys; print(json.load(sys.stdin)["pages_stored"])')
            single_cpu_ms[$build]=$(awk -v p="$pages" -v f="$figures" 'BEGIN { split(f, m, " "); printf "%.3f", m[2] * 1000 / p }')
            awk -v b="$(build_name "$build")" -v n="$round" -v p="$pages" -v f="$figures" -v ms="${single_cpu_ms[$build]}" \
                -v x="$(versus workers "crawler crawl (no Redis)" "$round" "$build" "CPU ms / page" "${single_cpu_ms[$build]}" lower)" \
                'BEGIN { split(f, m, " ");
                printf "| crawler crawl (no Redis) | %s | %s | %d | %.1f | %.0f | %.1f | %.3f | 1.00 | - | - | %.0f | %s |\n",
                    b, n, p, m[1], p / m[1], m[2], ms, m[3] / 1024, x }' >>"$work/workers.md"
        done
        for count in 1 2 4; do
            for build in $builds; do
                if missing=$(lacks "$build" worker); then
                    [ "$round" -eq 1 ] && na_row 13 "crawler worker x $count | $(build_name "$build") | all" "$missing" >>"$work/workers.md"
                    continue
                fi
                workers_run "$build" "$round" "$count" "$config" "$seeds" "${single_cpu_ms[$build]}"
            done
        done
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

# workers_run BUILD ROUND COUNT CONFIG SEEDS SINGLE_MS: one row, COUNT worker processes of
# BUILD (the first with the seeds and the scope, which make the crawl).
workers_run() {
    local build=$1 round=$2 count=$3 config=$4 seeds=$5 single_ms=$6 bin
    local dir="$work/workers-$build-$count"
    bin=$(build_bin "$build")
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
        measure "workers-$build-$round-$count-$w" "$bin/crawler" worker --redis "unix://$sock" \
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
        pages=$((pages + $("$bin/crawler" status --data "$p" --json |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["pages_stored"])')))
    done
    local line
    line=$(cat "$dir"/worker-*.figures | awk -v c="$count" -v b="$(build_name "$build")" -v n="$round" -v p="$pages" \
        -v e="$elapsed" -v cmds="$((after - before))" -v rc="$redis_cpu" -v single="$single_ms" '
        { cpu += $2; if ($3 > rss) rss = $3 }
        END {
            ms = cpu * 1000 / p
            printf "| crawler worker x %d | %s | %s | %d | %.1f | %.0f | %.1f | %.3f | %.2f | %.2f | %s | %.0f |",
                c, b, n, p, e, p / e, cpu, ms, ms / single, cmds / p, rc, rss / 1024
        }')
    echo "$line $(versus workers "crawler worker x $count" "$round" "$build" "CPU ms / page" "$(cell "$line" 8)" lower) |" >>"$work/workers.md"
}
