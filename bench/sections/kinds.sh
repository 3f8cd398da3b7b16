# The content-kinds section (issue 24): the same crawler over three generated sites in one run,
# so each kind's rate reads against the HTML crawl's. html/: pages only; images/: gallery pages
# showing JPEG and PNG photos (a tenth repeated under a second name), read with
# kinds = ["html", "image"] (format, size, JPEG quality, a thumbnail each); pdf/: library
# pages linking multi-page PDFs, read with the default kinds (each PDF in a child process).
# The sites are written by bench/kinds/make_sites.py (Pillow: Debian's python3-pil) and served
# by an nginx of their own on three ports. Sourced by bench/run (need, measure).
#
# Sizes: $BENCH_KINDS_PAGES (3000), $BENCH_KINDS_IMAGES (600), $BENCH_KINDS_PDFS (300). The
# "rest" column counts what is not an HTML page of the site: its images, its PDFs.
#
# In each of bench/run's rounds every site is crawled by each build (baseline, HEAD), into a
# store of its own. A build without content kinds (the baseline, 6a51d25: no `kinds` key)
# crawls the html site with no kinds line (HTML is all it reads) and has n/a rows, once, for
# the other two. HEAD / baseline compares answers/s of the same site within a round.

kinds_site_port() {
    echo $((port + 10 + $1))
}

kinds_start_nginx() {
    local site=$1 i=0 conf="$work/kinds-nginx.conf"
    {
        echo "worker_processes 2; pid $work/kinds-nginx.pid; error_log $work/kinds-nginx.err;"
        echo "events { worker_connections 1024; }"
        echo "http { access_log off; sendfile on; include /etc/nginx/mime.types;"
        echo "  client_body_temp_path $work/nginx-tmp; proxy_temp_path $work/nginx-tmp;"
        echo "  fastcgi_temp_path $work/nginx-tmp; uwsgi_temp_path $work/nginx-tmp; scgi_temp_path $work/nginx-tmp;"
        for name in html images pdf; do
            echo "  server { listen 127.0.0.1:$(kinds_site_port $i); root $site/$name; }"
            i=$((i + 1))
        done
        echo "}"
    } >"$conf"
    mkdir -p "$work/nginx-tmp"
    nginx -c "$conf" -p "$work"
}

kinds_stop_nginx() {
    nginx -c "$work/kinds-nginx.conf" -p "$work" -s stop 2>/dev/null || true
}

# kinds_crawl BUILD ROUND NAME PORT KINDS: crawls one site with BUILD's crawler, those kinds
# (none: no kinds line); prints "figures|stored".
kinds_crawl() {
    local build=$1 round=$2 name=$3 site_port=$4 kinds=$5 config="$work/kinds-$3-$1.toml" bin
    bin=$(build_bin "$build")
    printf '[crawler]\ndelay_ms = 0\nhost_concurrency = 8\nallow_loopback = true\n' >"$config"
    [ "$kinds" = none ] || printf 'kinds = %s\n' "$kinds" >>"$config"
    rm -rf "$work/kinds-$name-$build"
    local figures stored
    figures=$(measure "kinds-$name-$build-$round" "$bin/crawler" crawl --data "$work/kinds-$name-$build" \
        --config "$config" --seed "http://127.0.0.1:$site_port/")
    stored=$("$bin/crawler" status --data "$work/kinds-$name-$build" --json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["pages_stored"])')
    echo "$figures|$stored"
}

kinds_section() {
    need python3-pil
    local site="$work/kinds-sites"
    local pages=${BENCH_KINDS_PAGES:-3000} images=${BENCH_KINDS_IMAGES:-600} pdfs=${BENCH_KINDS_PDFS:-300}
    if [ ! -f "$site/.made-$pages-$images-$pdfs-2" ]; then
        rm -rf "$site"
        /usr/bin/python3 bench/kinds/make_sites.py "$site" --pages "$pages" --images "$images" --pdfs "$pdfs"
        touch "$site/.made-$pages-$images-$pdfs-2"
    fi
    kinds_start_nginx "$site"
    {
        echo "| site | build | round | kinds | answers stored | of them HTML pages | the rest | seconds | answers/s | the rest /s | CPU s | peak RSS MiB | HEAD / baseline (answers/s, higher is better) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        local row figures stored elapsed cpu rss html_pages round build missing line use
        for round in $(seq "$rounds"); do
            for spec in 'html|0|["html"]|pages' 'images|1|["html", "image"]|images' \
                'pdf|2|["html", "pdf"]|PDFs'; do
                IFS='|' read -r name index kinds what <<<"$spec"
                for build in $builds; do
                    use=$kinds
                    if missing=$(lacks "$build" kinds); then
                        if [ "$name" != html ]; then
                            [ "$round" -eq 1 ] && na_row 13 "$name | $(build_name "$build") | all" "$missing"
                            continue
                        fi
                        use=none
                    fi
                    html_pages=$(awk -v n="$name" '$1 == n { print $2 }' "$site/pages")
                    row=$(kinds_crawl "$build" "$round" "$name" "$(kinds_site_port "$index")" "$use")
                    figures=${row%|*}
                    stored=${row#*|}
                    read -r elapsed cpu rss <<<"$figures"
                    # The html site's "rest" is its pages themselves.
                    [ "$name" = html ] && html_pages=0
                    line=$(awk -v n="$name" -v b="$(build_name "$build")" -v r="$round" -v k="$use" -v s="$stored" \
                        -v h="$html_pages" -v w="$what" -v e="$elapsed" -v u="$cpu" -v m="$rss" 'BEGIN {
                        if (k == "none") k = "(no kinds line)"; else k = "`" k "`"
                        printf "| %s | %s | %s | %s | %d | %d | %d %s | %.1f | %.0f | %.0f | %.1f | %.0f |",
                            n, b, r, k, s, h, s - h, w, e, s / e, (s - h) / e, u, m / 1024 }')
                    echo "$line $(versus kinds "$name" "$round" "$build" answers/s "$(cell "$line" 9)" higher) |"
                done
            done
        done
    } >"$work/kinds.md"
    kinds_stop_nginx
    cat "$work/kinds.md"
}
