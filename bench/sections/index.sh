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

# index_bytes LOG: the body bytes of the 200 answers logged (fields: status bytes uri).
index_bytes() {
    awk '$1 == 200 { s += $2 } END { print s + 0 }' "$1"
}

# index_row TOOL DOCS BYTES "ELAPSED CPU RSS" NOTE: one table row.
index_row() {
    local tool=$1 docs=$2 bytes=$3 note=$5
    read -r elapsed cpu rss <<<"$4"
    awk -v t="$tool" -v d="$docs" -v b="$bytes" -v e="$elapsed" -v c="$cpu" -v r="$rss" -v n="$note" \
        'BEGIN { printf "| %s | %d | %.0f | %.1f | %.0f | %.1f | %.1f | %.0f | %s |\n",
                 t, d, b / 1e6, e, d / e, b / 1e6 / e, c, r / 1024, n }'
}

# index_summary FIELD RUN: a count (N FIELD) from the summary line the indexer printed in run
# RUN ("... (N indexed, ...").
index_summary() {
    grep -oE "[0-9]+ $1" "$work/$2.out" | head -n 1 | awk '{print $1}'
}

index_section() {
    need xapian-omega xapian-tools
    local url="http://127.0.0.1:$index_port/" store="$work/index-store"
    local config="$work/index-crawl.toml" log="$work/index-access.log"
    rm -rf "$store" "$work/omega" "${work:?}/overlay" && mkdir -p "$work/overlay"
    cat >"$config" <<EOF
[crawler]
revisit_ms = 1000
min_revisit_ms = 1000
EOF
    : >"$log"
    local crawl=(target/release/crawler crawl --data "$store" --seed "$url" --config "$config"
        --delay-ms 0 --host-concurrency 32 --allow-loopback)
    "${crawl[@]}" >"$work/index-crawl.out" 2>&1

    {
        echo "| tool | documents | HTML MB | seconds | docs/s | MB/s | CPU s | peak RSS MiB | notes |"
        echo "|---|---|---|---|---|---|---|---|---|"
    } >"$work/index.md"

    local full html docs
    html=$(index_bytes "$log")
    full=$(measure index-full target/release/indexer build --data "$store" --full)
    docs=$(index_summary indexed index-full)
    index_row "sift indexer build --full" "$docs" "$html" "$full" \
        "every stored page of a crawl of the corpus; $(index_summary duplicates index-full) duplicates and $(index_summary noindex index-full) noindex pages folded or skipped" >>"$work/index.md"

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
    recrawl=$(measure index-recrawl "${crawl[@]}")
    local refetched
    refetched=$(awk '$1 == 200' "$log" | wc -l)
    local incremental
    incremental=$(measure index-incremental target/release/indexer build --data "$store")
    index_row "sift indexer build (incremental)" "$(index_summary indexed index-incremental)" \
        "$(index_bytes "$log")" "$incremental" \
        "after $changed pages (1%) changed: a re-crawl ($(echo "$recrawl" | awk '{print $1}') s) asked for every page again, $refetched came back with a body" >>"$work/index.md"

    if command -v omindex >/dev/null; then
        local omega
        omega=$(measure omindex omindex --db "$work/omega" --url / "$corpus")
        docs=$(xapian-delve "$work/omega" | awk -F'= ' '/number of documents/ {print $2}')
        html=$(find "$corpus" -name '*.html' -printf '%s\n' | awk '{ s += $1 } END { print s }')
        index_row "omindex" "$docs" "$html" "$omega" \
            "$(omindex --version | head -n 1): every file of the corpus directory" >>"$work/index.md"
        local ours theirs
        ours=$(awk -v d="$(index_summary indexed index-full)" -v e="$(echo "$full" | awk '{print $1}')" 'BEGIN { print d / e }')
        theirs=$(awk -v d="$docs" -v e="$(echo "$omega" | awk '{print $1}')" 'BEGIN { print d / e }')
        {
            echo
            awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "Documents/s ratio, full build: sift / omindex: %.2f×.\n", a / b }'
        } >>"$work/index.md"
    fi
    cat "$work/index.md"
}
