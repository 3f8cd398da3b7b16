# The index section: the whole store into a fresh index, then an incremental build after 1% of
# the pages changed; Xapian's omindex over the same HTML files beside it. Sourced by
# bench/run, which defines need, measure and the ports.
#
# The store is crawled here, from the index server of bench/nginx.conf.in (port + 2: the
# corpus, with any file under $work/overlay standing in for the corpus file of the same
# path), with re-visits due one second after a visit. Then:
# 1. `indexer build --full` (measured): documents indexed, HTML read (the bodies of the pages
#    nginx answered 200 to the crawl, from its log), peak RSS.
# 2. One page in a hundred of those the crawl fetched is changed: a copy with one more
#    paragraph goes under the overlay. `crawler crawl` again (timed, for the note): it asks
#    for every page again with If-None-Match / If-Modified-Since, and only the changed pages
#    come back with a body.
# 3. `indexer build` (incremental, measured): the documents it re-indexed.
# omindex (Debian xapian-omega) indexes the corpus directory into a fresh database: its
# documents are counted with xapian-delve, its HTML is every .html file of the corpus. Its own
# incremental mode (skipping files whose mtime did not change) is not run: it reads files, not
# a crawl, so there is no like-for-like "1% changed" for it.
#
# Steps 1-3 run once per build and round (baseline, HEAD, baseline, HEAD: bench/run's $builds
# and $rounds), each build crawling a fresh store of its own ($work/index-store-BUILD, the query
# section's index) with its own crawler, the overlay emptied first so every crawl meets the same
# corpus and the same pages change. The HEAD / baseline column compares docs/s within a round.
# omindex runs once, after; the ratio line under the table uses HEAD's last full build.

# index_bytes LOG: the body bytes of the 200 answers logged (fields: status bytes uri).
index_bytes() {
    awk '$1 == 200 { s += $2 } END { print s + 0 }' "$1"
}

# index_row TOOL BUILD ROUND DOCS BYTES "ELAPSED CPU RSS" RATIO NOTE: one table row.
index_row() {
    local tool=$1 build=$2 round=$3 docs=$4 bytes=$5 ratio=$7 note=$8
    read -r elapsed cpu rss <<<"$6"
    awk -v t="$tool" -v b="$build" -v n="$round" -v d="$docs" -v by="$bytes" -v e="$elapsed" -v c="$cpu" \
        -v r="$rss" -v x="$ratio" -v note="$note" \
        'BEGIN { printf "| %s | %s | %s | %d | %.0f | %.1f | %.0f | %.1f | %.1f | %.0f | %s | %s |\n",
                 t, b, n, d, by / 1e6, e, d / e, by / 1e6 / e, c, r / 1024, x, note }'
}

# index_docs_per_s DOCS "ELAPSED CPU RSS": documents per second, for the ratio.
index_docs_per_s() {
    awk -v d="$1" -v f="$2" 'BEGIN { split(f, m, " "); printf "%.1f", d / m[1] }'
}

# index_summary FIELD RUN: a count (N FIELD) from the summary line the indexer printed in run
# RUN ("... (N indexed, ...").
index_summary() {
    grep -oE "[0-9]+ $1" "$work/$2.out" | head -n 1 | awk '{print $1}'
}

# index_build BUILD ROUND: the crawl and the two measured builds of one build in one round;
# appends its two rows to $work/index.md.
index_build() {
    local build=$1 round=$2 bin name
    bin=$(build_bin "$build")
    name=$(build_name "$build")
    local url="http://127.0.0.1:$index_port/" store="$work/index-store-$build"
    local config="$work/index-crawl.toml" log="$work/index-access.log" run="index-$build-$round"
    rm -rf "$store" "${work:?}/overlay" && mkdir -p "$work/overlay"
    # nginx's open_file_cache would serve the overlay's files of the last run for up to a
    # minute after they are gone: a reload starts workers with an empty cache.
    nginx -c "$work/nginx.conf" -p "$work" -s reload 2>/dev/null
    sleep 1
    cat >"$config" <<EOF
[crawler]
revisit_ms = 1000
min_revisit_ms = 1000
EOF
    : >"$log"
    local crawl=("$bin/crawler" crawl --data "$store" --seed "$url" --config "$config"
        --delay-ms 0 --host-concurrency 32 --allow-loopback)
    "${crawl[@]}" >"$work/$run-crawl.out" 2>&1

    local full html docs
    html=$(index_bytes "$log")
    full=$(measure "$run-full" "$bin/indexer" build --data "$store" --full)
    docs=$(index_summary indexed "$run-full")
    index_row "sift indexer build --full" "$name" "$round" "$docs" "$html" "$full" \
        "$(versus index "full build" "$round" "$build" docs/s "$(index_docs_per_s "$docs" "$full")" higher)" \
        "every stored page of a crawl of the corpus; $(index_summary duplicates "$run-full") duplicates and $(index_summary noindex "$run-full") noindex pages folded or skipped" >>"$work/index.md"
    index_last_full_docs=$docs index_last_full=$full

    # 1% of the pages fetched: every hundredth, in URL order, gets one more paragraph.
    local changed=0 uri file
    while read -r uri; do
        file="$corpus$uri"
        [ -d "$file" ] && file="$file/index.html"
        [ -f "$file" ] || continue
        mkdir -p "$(dirname "$work/overlay${file#"$corpus"}")"
        sed 's|</body>|<p>Revised for the benchmark: this paragraph is new.</p></body>|' \
            "$file" >"$work/overlay${file#"$corpus"}"
        changed=$((changed + 1))
    done < <(awk '$1 == 200 && ($3 ~ /\.html$/ || $3 ~ /\/$/) { print $3 }' "$log" | sort -u | awk 'NR % 100 == 0')
    sleep 1
    : >"$log"
    local recrawl
    recrawl=$(measure "$run-recrawl" "${crawl[@]}")
    local refetched
    refetched=$(awk '$1 == 200' "$log" | wc -l)
    local incremental
    incremental=$(measure "$run-incremental" "$bin/indexer" build --data "$store")
    docs=$(index_summary indexed "$run-incremental")
    index_row "sift indexer build (incremental)" "$name" "$round" "$docs" "$(index_bytes "$log")" "$incremental" \
        "$(versus index "incremental build" "$round" "$build" docs/s "$(index_docs_per_s "$docs" "$incremental")" higher)" \
        "after $changed pages (1%) changed: a re-crawl ($(echo "$recrawl" | awk '{print $1}') s) asked for every page again, $refetched came back with a body" >>"$work/index.md"
}

index_section() {
    need xapian-omega xapian-tools
    rm -rf "$work/omega"
    {
        echo "| tool | build | round | documents | HTML MB | seconds | docs/s | MB/s | CPU s | peak RSS MiB | HEAD / baseline (docs/s, higher is better) | notes |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >"$work/index.md"
    local round build
    for round in $(seq "$rounds"); do
        for build in $builds; do
            index_build "$build" "$round"
        done
    done
    rm -rf "${work:?}/overlay" && mkdir -p "$work/overlay"

    if command -v omindex >/dev/null; then
        local omega docs html
        omega=$(measure omindex omindex --db "$work/omega" --url / "$corpus")
        docs=$(xapian-delve "$work/omega" | awk -F'= ' '/number of documents/ {print $2}')
        html=$(find "$corpus" -name '*.html' -printf '%s\n' | awk '{ s += $1 } END { print s }')
        index_row "omindex" – – "$docs" "$html" "$omega" – \
            "$(omindex --version | head -n 1): every file of the corpus directory" >>"$work/index.md"
        local ours theirs
        ours=$(index_docs_per_s "$index_last_full_docs" "$index_last_full")
        theirs=$(index_docs_per_s "$docs" "$omega")
        {
            echo
            awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "Documents/s ratio, full build: sift (HEAD, last round) / omindex: %.2f×.\n", a / b }'
        } >>"$work/index.md"
    fi
    cat "$work/index.md"
}
