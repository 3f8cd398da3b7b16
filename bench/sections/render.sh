# The render section (issue 25): the whole Rust docs crawled twice over nginx on loopback,
# politeness off for that one host: with rendering off, then with render = "always" (every
# page run in headless Chromium, every request it makes answered by the crawler). Sourced by
# bench/run, which defines need, row and the ports.
#
# Columns: pages stored (`crawler status`), the corpus's HTML files fetched (from nginx's
# log, bench/render/count_pages.py), of them source pages (under src/) and Rust-by-Example
# pages of a translation (a language menu only a script writes links them), seconds,
# pages stored per second, CPU seconds (the crawler's, with the browser's processes as far
# as they were reaped), and the peak memory of the crawler and its browser together (Pss,
# sampled every half second by bench/render/peak_memory.py). The HTML files only the
# rendering crawl fetched are counted by kind in $work/render-on-BUILD-only.txt, the others listed.
# $BENCH_RENDER_CONCURRENCY (default 6) pages are rendered at once, the browser's memory bound
# 512 MiB for each (at least 2 GiB). $BENCH_RENDER_MAX_TIME
# (seconds; default none) stops the rendering crawl early, as `--max-time` does; its row
# then says so.
#
# In each of bench/run's rounds: the crawl without rendering by each build (baseline, HEAD),
# each into a store of its own, then the rendering crawl by each build that has `render`
# (the baseline, 6a51d25, has not: its row says n/a, once), compared with the same build's
# crawl without rendering of that round. HEAD / baseline compares pages/s within a round.

# render_crawl BUILD ROUND NAME URL CONFIG LABEL [MAX_TIME [OTHER]]: one crawl by BUILD's
# crawler into $work/NAME-BUILD, its files compared with those of OTHER-BUILD if given; prints
# its row.
render_crawl() {
    local build=$1 round=$2 name=$3 url=$4 config=$5 label=$6 max_time=${7:-} other=${8:-} bin
    bin=$(build_bin "$build")
    local data="$work/$name-$build"
    rm -rf "$data"
    : >"$work/$name-access.log"
    nginx -c "$work/nginx.conf" -p "$work" -s reopen 2>/dev/null
    /usr/bin/time -f "%e %U %S %M" -o "$data.time" "$bin/crawler" crawl \
        --data "$data" --seed "$url" --delay-ms 0 --host-concurrency 32 --allow-loopback \
        --config "$config" ${max_time:+--max-time "$max_time"} >"$data.out" 2>"$data.err" &
    local timer=$!
    local crawler=""
    while [ -z "$crawler" ] && kill -0 "$timer" 2>/dev/null; do
        sleep 0.1
        crawler=$(pgrep -P "$timer" || true)
    done
    [ -n "$crawler" ] && python3 bench/render/peak_memory.py "$crawler" "$data.mem" &
    local sampler=$!
    wait "$timer" || true
    wait "$sampler" 2>/dev/null || true
    # The access log is per port: kept per build for the comparison.
    cp "$work/$name-access.log" "$data-access.log"
    local elapsed cpu stored html source translated peak
    read -r elapsed cpu <<<"$(tail -n 1 "$data.time" | awk '{printf "%s %.1f", $1, $2 + $3}')"
    stored=$("$bin/crawler" status --data "$data" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["pages_stored"])')
    # The rendering crawl's files are compared with the static crawl's, which runs first.
    read -r html source translated <<<"$(python3 bench/render/count_pages.py "$corpus" \
        "$data-access.log" ${other:+"$work/$other-$build-access.log" "$data-only.txt"})"
    peak=$(awk '{printf "%.0f", $1 / 1024}' "$data.mem" 2>/dev/null || echo 0)
    local line
    line=$(awk -v n="$label" -v b="$(build_name "$build")" -v r="$round" -v s="$stored" -v h="$html" \
        -v src="$source" -v t="$translated" -v e="$elapsed" -v c="$cpu" -v m="$peak" \
        'BEGIN { printf "| %s | %s | %s | %d | %d | %d | %d | %.1f | %.1f | %.1f | %d |", n, b, r, s, h, src, t, e, s / e, c, m }')
    echo "$line $(versus render "$name" "$round" "$build" pages/s "$(cell "$line" 9)" higher) |"
}

render_section() {
    need chromium
    local concurrency=${BENCH_RENDER_CONCURRENCY:-6}
    local max_time=${BENCH_RENDER_MAX_TIME:-}
    local cut=""
    [ -n "$max_time" ] && cut=" (stopped at --max-time ${max_time}s if not done)"
    printf '[crawler]\n' >"$work/render-off.toml"
    # The browser's memory bound sized as README says: 512 MiB per page rendered at once, at
    # least the 2 GiB default (with the default at 12 at once, browsers thrash in core::arch).
    local bound=$((concurrency * 512 * 1024 * 1024))
    if [ "$bound" -lt $((2 << 30)) ]; then bound=$((2 << 30)); fi
    printf '[crawler]\nrender = "always"\nrender_concurrency = %s\nrender_max_browser_bytes = %s\n' \
        "$concurrency" "$bound" >"$work/render-on.toml"
    local round build missing
    {
        echo "| crawl | build | round | pages stored | HTML files fetched | source pages | translated RBE pages | seconds | pages/s | CPU s | peak MiB (crawler + browser) | HEAD / baseline (pages/s, higher is better) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
        for round in $(seq "$rounds"); do
            for build in $builds; do
                render_crawl "$build" "$round" render-off "http://127.0.0.1:$render_off_port/" \
                    "$work/render-off.toml" "render = never"
            done
            for build in $builds; do
                if missing=$(lacks "$build" render); then
                    [ "$round" -eq 1 ] && na_row 12 "render = always | $(build_name "$build") | all" "$missing"
                    continue
                fi
                render_crawl "$build" "$round" render-on "http://127.0.0.1:$render_on_port/" \
                    "$work/render-on.toml" "render = always, $concurrency at once$cut" \
                    "${max_time:+${max_time}s}" render-off
            done
        done
    } >"$work/render.md"
    # Why browsers were replaced and pages not rendered, counted (the URL left out), in HEAD's
    # last rendering crawl.
    grep -h "browser replaced\|page not rendered" "$work/render-on-head.err" |
        sed -e 's/^.*\(browser replaced\|page not rendered\)/\1/' -e 's/ url=[^ ]*//' |
        sort | uniq -c | sed 's/^/    /' >"$work/render-notes.txt" || true
    cat "$work/render.md"
}
