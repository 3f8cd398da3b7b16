# The crawl section: the whole Rust docs over nginx on loopback, politeness off for that one
# host, every tool storing every page. Sourced by bench/run, which defines measure and row.

crawl_section() {
    local url="http://127.0.0.1:$port/"
    cargo build --release --quiet -p crawler
    table_head >"$work/crawl.md"

    rm -rf "$work/sift"
    local figures
    figures=$(measure sift target/release/crawler crawl --data "$work/sift" --seed "$url" \
        --delay-ms 0 --host-concurrency 32 --allow-loopback)
    local pages
    pages=$(target/release/crawler status --data "$work/sift" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["pages_stored"])')
    row "sift crawler" "$pages" "$figures" "stores every page, its headers and links (RocksDB)" >>"$work/crawl.md"

    rm -rf "$work/wget"
    figures=$(measure wget wget -r -np -nv -l inf -P "$work/wget" "$url")
    pages=$(find "$work/wget" -name '*.html' | wc -l)
    row "wget -r -np" "$pages" "$figures" "stores every file" >>"$work/crawl.md"
    cat "$work/crawl.md"
}
