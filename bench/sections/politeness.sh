# The politeness section: one crawl over 50 hosts with the default politeness (1 s between two
# requests to a host, one at a time), each host a whole copy of the corpus on an address of its
# own, seeded at a module of its own, so every host has work. Does the crawler keep every
# host busy at its allowed rate, and never faster? Sourced by bench/run, which defines measure, polite_hosts,
# polite_address and the nginx server that logs "$host $msec $status" for each request.
#
# Host I is polite-I.test, pinned to its address by the config's [crawler.resolve]. The crawl
# runs $BENCH_POLITE_SECONDS (default 60) with --max-time. From nginx's log, per host: the
# requests it answered and the least gap between two of them. Allowed: from a host's first
# request to the last request of the crawl, one request per second, plus the first. The
# crawler's OS threads are read from /proc five seconds in.
#
# Each build's crawler runs once per round (baseline, HEAD, ...), into a store of its own;
# HEAD / baseline compares achieved / allowed within a round.

politeness_section() {
    local seconds=${BENCH_POLITE_SECONDS:-60}
    local config="$work/polite.toml" seeds="$work/polite-seeds.txt"
    local i
    {
        echo "[crawler]"
        echo "allow_loopback = true"
        echo "[crawler.resolve]"
        for i in $(seq 1 "$polite_hosts"); do
            echo "\"polite-$i.test\" = \"$(polite_address "$i")\""
        done
    } >"$config"
    # Host I starts at the I-th largest module of std (by HTML files): every host serves the
    # same corpus, and the crawler rightly follows no links of a page it has stored from
    # another host (a duplicate), so hosts seeded at one page would all stop after it but
    # one, and a host seeded at a small module runs out of work.
    local modules
    mapfile -t modules < <(cd "$corpus" && for dir in std/*/; do
        echo "$(find "$dir" -name '*.html' | wc -l) ${dir}index.html"
    done | sort -rn | head -n "$polite_hosts" | awk '{print $2}')
    for i in $(seq 1 "$polite_hosts"); do
        echo "http://polite-$i.test:$polite_port/${modules[$((i - 1))]}"
    done >"$seeds"
    {
        echo "| build | round | hosts | seconds | requests | allowed | achieved / allowed | worst host | least gap to one host, ms | crawler threads | CPU s | peak RSS MiB | HEAD / baseline (achieved / allowed, higher is better) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >"$work/politeness.md"
    local round build line
    for round in $(seq "$rounds"); do
        for build in $builds; do
            line=$(politeness_run "$build" "$round" "$config" "$seeds" "$seconds")
            echo "$line $(versus politeness "$polite_hosts hosts" "$round" "$build" "achieved / allowed" "$(cell "$line" 7)" higher) |" >>"$work/politeness.md"
        done
    done
    {
        echo
        echo "Each host: the corpus at http://polite-I.test:$polite_port/ (I = 1..$polite_hosts) on its own address, crawled with the default delay (1 s) and host concurrency (1) for ${seconds} s; the hosts column counts the hosts that were asked anything."
    } >>"$work/politeness.md"
    cat "$work/politeness.md"
}

# politeness_run BUILD ROUND CONFIG SEEDS SECONDS: one crawl by BUILD's crawler; prints its row
# but the last cell.
politeness_run() {
    local build=$1 round=$2 config=$3 seeds=$4 seconds=$5
    local data="$work/polite-$build" log="$work/polite-access.log" bin
    bin=$(build_bin "$build")
    rm -rf "$data"
    : >"$log"
    measure "politeness-$build-$round" "$bin/crawler" crawl --data "$data" --seeds "$seeds" \
        --config "$config" --max-time "${seconds}s" >"$work/politeness.figures" &
    local measured=$!
    sleep 5
    local threads
    threads=$(awk '/^Threads/ {print $2}' "/proc/$(pgrep -n -f "crawler crawl --data $data ")/status" 2>/dev/null || echo "?")
    wait $measured
    local figures
    figures=$(cat "$work/politeness.figures")
    sort -k1,1 -k2,2n "$log" | awk -v f="$figures" -v threads="$threads" -v b="$(build_name "$build")" -v n="$round" '
        BEGIN { gap = 1e9 }
        { host[$1]++; if (!($1 in first)) first[$1] = $2
          if ($1 in last && $2 - last[$1] < gap) gap = $2 - last[$1]
          last[$1] = $2; if ($2 > end) end = $2; if (start == 0 || $2 < start) start = $2 }
        END {
            split(f, m, " ")
            worst = 1e9
            for (h in host) {
                hosts++; requests += host[h]
                allowed_h = int(end - first[h]) + 1
                allowed += allowed_h
                if (host[h] / allowed_h < worst) worst = host[h] / allowed_h
            }
            printf "| %s | %s | %d | %.1f | %d | %d | %.3f | %.3f | %.0f | %s | %.1f | %.0f |",
                b, n, hosts, end - start, requests, allowed, requests / allowed, worst, gap * 1000,
                threads, m[2], m[3] / 1024
        }'
}
