# The crawl section: the whole Rust docs over nginx on loopback, politeness off for that one
# host, every tool storing every page. Sourced by bench/run, which defines need, measure, row.
#
# Peers (issue 7): wget -r -np (Debian); spider_cli (crates.io, pinned below, installed with
# `cargo install --locked` into $BENCH_TOOLS, default $work/tools), run twice: `crawl`, which
# fetches and parses every page but stores nothing, and `download`, which writes every page to
# a file (the fair row: each stores every page, as we do), each retried while it ends early by
# itself (see crawl_spider_best); Scrapy (PyPI, pinned below, in a
# venv under $BENCH_TOOLS) with the CrawlSpider of bench/scrapy/crawl_spider.py (robots and
# delays off, 64 concurrent requests, every body written to a file). A peer whose install
# fails gets a row saying why; the section goes on. Each peer run is cut off after
# $BENCH_PEER_TIMEOUT seconds (default 600); a cut-off row says so, its pages/s is pages over
# elapsed seconds.
# $BENCH_CRAWL_PEERS (default "spider_cli scrapy") names the installed peers to run; wget
# always runs, the yardstick. A run that compares two builds of sift (BENCH_CRAWL_PEERS=none)
# skips the long installs and runs; a peer left out gets a row saying so.
#
# The "HTML pages" column: for every peer, the distinct HTML files of the corpus that the tool
# fetched (spider_cli crawl: the URLs it prints) or stored (wget, spider_cli download, Scrapy:
# the files it wrote, which mirror the URL paths). Each URL or stored path is mapped to the
# corpus ("/a/" and "/a" to a/index.html) and counted once if that is an .html file there, so
# error pages, redirects and duplicates count for no one. Ours: `crawler status`'s
# pages_stored. A ratio line under the table: our pages/s over each peer's.
#
# Ours runs first, once per build and round (baseline, HEAD, baseline, HEAD: bench/run's
# $builds and $rounds), each build's crawler into a store of its own; the HEAD / baseline
# column compares pages/s within a round. Peers run once, after; their ratio line and the
# spider_cli retries use HEAD's last round.

crawl_spider_cli_version=2.53.9
crawl_scrapy_version=2.19.0

# crawl_count_html: reads URLs or paths relative to the site root on stdin, prints how many
# distinct .html files of the corpus they name.
crawl_count_html() {
    python3 -c '
import os, sys
from urllib.parse import unquote, urlsplit
root = sys.argv[1]
seen = set()
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    path = unquote(urlsplit(line).path) if "://" in line else line
    rel = os.path.normpath(path.lstrip("/").removeprefix("./")) if path.strip("/.") else "."
    if rel.startswith(".."):
        continue
    full = os.path.join(root, rel)
    if os.path.isdir(full):
        full = os.path.join(full, "index.html")
    if full.endswith(".html") and os.path.isfile(full):
        seen.add(os.path.realpath(full))
print(len(seen))
' "$corpus"
}

# crawl_stored_html DIR: how many corpus HTML files a tool stored under DIR (a mirror of URL
# paths).
crawl_stored_html() {
    [ -d "$1" ] || { echo 0; return; }
    (cd "$1" && find . -type f) | crawl_count_html
}

# crawl_cut NAME: " (cut off at N s)" if the run NAME under measure was ended by timeout.
crawl_cut() {
    if grep -qE 'status (124|137)|signal (9|15)' "$work/$1.time" 2>/dev/null; then
        echo " (cut off at ${crawl_timeout} s)"
    fi
}

# crawl_install_spider_cli: spider_cli into $tools/bin, unless that version is there. On failure
# sets crawl_spider_missing to the reason.
crawl_install_spider_cli() {
    local version=$crawl_spider_cli_version
    crawl_spider_missing=""
    if [ "$("$tools/bin/spider" --version 2>/dev/null)" = "spider_cli $version" ]; then
        return 0
    fi
    if ! command -v cargo >/dev/null; then
        crawl_spider_missing="not installed: no cargo"
        return 1
    fi
    need pkg-config libssl-dev
    echo "installing spider_cli $version (cargo install, several minutes)" >&2
    if ! cargo install spider_cli --version "$version" --locked --root "$tools" \
        >"$work/spider_cli-install.log" 2>&1; then
        crawl_spider_missing="not installed: cargo install spider_cli@$version failed (see $work/spider_cli-install.log)"
        return 1
    fi
}

# crawl_install_scrapy: Scrapy in the venv $tools/scrapy-venv, unless that version is there. On
# failure sets crawl_scrapy_missing to the reason.
crawl_install_scrapy() {
    local version=$crawl_scrapy_version venv=$tools/scrapy-venv
    crawl_scrapy_missing=""
    if [ "$("$venv/bin/scrapy" version 2>/dev/null)" = "Scrapy $version" ]; then
        return 0
    fi
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        need python3-venv
        python3 -m venv "$venv" >/dev/null 2>&1 || {
            crawl_scrapy_missing="not installed: python3 -m venv failed"
            return 1
        }
    fi
    echo "installing Scrapy $version (pip, in $venv)" >&2
    if ! "$venv/bin/pip" install -q "scrapy==$version" >"$work/scrapy-install.log" 2>&1; then
        crawl_scrapy_missing="not installed: pip install scrapy==$version failed (see $work/scrapy-install.log)"
        return 1
    fi
}

# crawl_spider_best MODE SIFT_PAGES ARGS...: runs spider_cli (ARGS) until one run reaches 90% of
# our page count, at most $BENCH_SPIDER_RUNS times (default 10), and keeps the run that reached
# the most pages in crawl_best_pages, crawl_best_figures, crawl_best_note and crawl_best_flag.
# spider_cli 2.53.9 mostly ends by itself, exit 0 and no message, after a few hundred or
# thousand pages: its page loop (`while let Ok(page) = rx.recv().await` on a tokio broadcast
# channel of 30 pages) stops as soon as the channel lags, i.e. when the crawl gets 30 pages ahead
# of the loop that prints or writes them, and main returns under the crawl. Here 1 of 23
# `crawl -o` runs went to the end (31,774 pages in 31 s); `download`, whose loop writes a file
# per page, never did in 16. Failed runs take seconds, so retrying is cheap; a row that never
# got through says so.
crawl_spider_best() {
    local mode=$1 want=$2 runs=${BENCH_SPIDER_RUNS:-10} i name figures pages tried=()
    shift 2
    want=$((want * 9 / 10))
    crawl_best_pages=-1
    for ((i = 1; i <= runs; i++)); do
        name=spider_cli-$mode-$i
        rm -rf "$work/spider_cli-download"
        figures=$(measure "$name" timeout -k 30 "$crawl_timeout" "$tools/bin/spider" "$@")
        if [ "$mode" = download ]; then
            pages=$(crawl_stored_html "$work/spider_cli-download")
        else
            pages=$(crawl_count_html <"$work/$name.out")
        fi
        tried+=("$pages")
        if [ "$pages" -gt "$crawl_best_pages" ]; then
            crawl_best_pages=$pages
            crawl_best_figures=$figures
            crawl_best_note=$(crawl_cut "$name")
        fi
        [ "$pages" -ge "$want" ] && break
    done
    crawl_best_flag=""
    if [ "$crawl_best_pages" -lt "$want" ]; then
        crawl_best_note="$crawl_best_note; INCOMPLETE: each of ${#tried[@]} runs ended by itself (exit 0; its page channel lagged), at $(IFS=/; echo "${tried[*]}") pages; the most complete kept"
        crawl_best_flag=" (spider_cli incomplete)"
    elif [ "${#tried[@]}" -gt 1 ]; then
        crawl_best_note="$crawl_best_note; run ${#tried[@]}: the runs before it ended by themselves (exit 0; its page channel lagged) at $(IFS=/; echo "${tried[*]:0:${#tried[@]}-1}") pages"
    fi
}

# crawl_missing_row TOOL REASON: the row of a peer that could not run.
crawl_missing_row() {
    echo "| $1 | – | – | – | – | – | – | – | – | $2 |"
}

# crawl_ratio NAME SIFT_PAGES SIFT_FIGURES PAGES FIGURES [FLAG]: "sift / NAME: R×FLAG" (pages/s
# over pages/s), nothing if the peer fetched nothing.
crawl_ratio() {
    local se sp pe pp
    sp=$2
    read -r se _ _ <<<"$3"
    pp=$4
    read -r pe _ _ <<<"$5"
    awk -v n="$1" -v sp="$sp" -v se="$se" -v pp="$pp" -v pe="$pe" -v f="${6:-}" 'BEGIN {
        if (pp > 0 && pe > 0 && se > 0) printf "sift / %s: %.2f×%s", n, (sp / se) / (pp / pe), f
    }'
}

# crawl_warm_up URL: the builds' and installs' writes flushed, then one unmeasured crawl of the
# corpus, so that the first tool measured meets the same warm page cache and nginx workers as
# the tools after it (the first crawl after a fresh build and nginx start ran 10-40% slower).
crawl_warm_up() {
    sync
    rm -rf "$work/warm-up"
    "$head_bin/crawler" crawl --data "$work/warm-up" --seed "$1" --delay-ms 0 \
        --host-concurrency 32 --allow-loopback >/dev/null 2>&1 || true
    rm -rf "$work/warm-up"
    sync
}

crawl_section() {
    local url="http://127.0.0.1:$port/"
    tools=${BENCH_TOOLS:-$work/tools}
    crawl_timeout=${BENCH_PEER_TIMEOUT:-600}
    mkdir -p "$tools"
    # Installs first, so that no build runs beside a measured crawl.
    local peers=" ${BENCH_CRAWL_PEERS:-spider_cli scrapy} "
    if [[ $peers == *" spider_cli "* ]]; then
        crawl_install_spider_cli || echo "spider_cli: $crawl_spider_missing" >&2
    else
        crawl_spider_missing="not run (BENCH_CRAWL_PEERS)"
    fi
    if [[ $peers == *" scrapy "* ]]; then
        crawl_install_scrapy || echo "Scrapy: $crawl_scrapy_missing" >&2
    else
        crawl_scrapy_missing="not run (BENCH_CRAWL_PEERS)"
    fi
    crawl_warm_up "$url"
    table_head >"$work/crawl.md"
    local ratios=()

    local sift_figures sift_pages round build bin ratio
    for round in $(seq "$rounds"); do
        for build in $builds; do
            bin=$(build_bin "$build")
            rm -rf "$work/sift-$build"
            sift_figures=$(measure "sift-$build-$round" "$bin/crawler" crawl --data "$work/sift-$build" \
                --seed "$url" --delay-ms 0 --host-concurrency 32 --allow-loopback)
            sift_pages=$("$bin/crawler" status --data "$work/sift-$build" --json |
                python3 -c 'import json,sys; print(json.load(sys.stdin)["pages_stored"])')
            ratio=$(versus crawl "sift crawler" "$round" "$build" pages/s \
                "$(awk -v p="$sift_pages" -v f="$sift_figures" 'BEGIN { split(f, m, " "); printf "%.1f", p / m[1] }')" higher)
            row "sift crawler" "$(build_name "$build")" "$round" "$sift_pages" "$sift_figures" "$ratio" \
                "stores every page, its headers and links (RocksDB)" >>"$work/crawl.md"
        done
    done

    local figures pages
    if [ -z "$crawl_spider_missing" ]; then
        # HTTP mode (--http: no browser even though the default build has the chrome feature);
        # robots.txt is off unless -r, no delay unless -D, no depth or page limit unless
        # -d/--limit; requests in flight: its default (DEFAULT_PERMITS: 30 on 2 cores). crawl
        # prints each page's URL only with -o (without it, it exits before crawling).
        crawl_spider_best crawl "$sift_pages" --http --url "$url" crawl --output-links
        row "spider_cli crawl" – – "$crawl_best_pages" "$crawl_best_figures" – "spider_cli $crawl_spider_cli_version: fetches and parses every page, stores nothing (prints the URLs)$crawl_best_note" >>"$work/crawl.md"
        ratios+=("$(crawl_ratio "spider_cli crawl" "$sift_pages" "$sift_figures" "$crawl_best_pages" "$crawl_best_figures" "$crawl_best_flag")")

        crawl_spider_best download "$sift_pages" --http --url "$url" download -t "$work/spider_cli-download"
        row "spider_cli download" – – "$crawl_best_pages" "$crawl_best_figures" – "spider_cli $crawl_spider_cli_version: writes every page to a file$crawl_best_note" >>"$work/crawl.md"
        ratios+=("$(crawl_ratio "spider_cli download" "$sift_pages" "$sift_figures" "$crawl_best_pages" "$crawl_best_figures" "$crawl_best_flag")")
    else
        crawl_missing_row "spider_cli" "$crawl_spider_missing" >>"$work/crawl.md"
    fi

    rm -rf "$work/wget"
    figures=$(measure wget timeout -k 30 "$crawl_timeout" wget -r -np -nv -l inf -P "$work/wget" "$url")
    pages=$(crawl_stored_html "$work/wget/127.0.0.1:$port")
    row "wget -r -np" – – "$pages" "$figures" – "$(wget --version | head -n 1 | awk '{print "wget", $3}'): stores every file$(crawl_cut wget)" >>"$work/crawl.md"
    ratios+=("$(crawl_ratio wget "$sift_pages" "$sift_figures" "$pages" "$figures")")

    if [ -z "$crawl_scrapy_missing" ]; then
        rm -rf "$work/scrapy"
        figures=$(measure scrapy timeout -k 30 "$crawl_timeout" env PYTHONDONTWRITEBYTECODE=1 \
            "$tools/scrapy-venv/bin/scrapy" runspider bench/scrapy/crawl_spider.py \
            -a "url=$url" -a "out=$work/scrapy")
        pages=$(crawl_stored_html "$work/scrapy")
        row "Scrapy" – – "$pages" "$figures" – "Scrapy $crawl_scrapy_version, CrawlSpider, 64 concurrent requests: writes every page to a file$(crawl_cut scrapy)" >>"$work/crawl.md"
        ratios+=("$(crawl_ratio Scrapy "$sift_pages" "$sift_figures" "$pages" "$figures")")
    else
        crawl_missing_row "Scrapy" "$crawl_scrapy_missing" >>"$work/crawl.md"
    fi

    {
        echo
        local line="" r
        for r in "${ratios[@]}"; do
            [ -n "$r" ] && line="${line:+$line, }$r"
        done
        echo "Pages/s ratios of HEAD's last round: ${line:-none}."
    } >>"$work/crawl.md"
    cat "$work/crawl.md"
}
