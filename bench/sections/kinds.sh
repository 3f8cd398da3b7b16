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

# kinds_crawl NAME PORT KINDS: crawls one site with those kinds; prints "figures|stored".
kinds_crawl() {
    local name=$1 site_port=$2 kinds=$3 config="$work/kinds-$1.toml"
    printf '[crawler]\ndelay_ms = 0\nhost_concurrency = 8\nallow_loopback = true\nkinds = %s\n' \
        "$kinds" >"$config"
    rm -rf "$work/kinds-$name"
    local figures stored
    figures=$(measure "kinds-$name" target/release/crawler crawl --data "$work/kinds-$name" \
        --config "$config" --seed "http://127.0.0.1:$site_port/")
    stored=$(target/release/crawler status --data "$work/kinds-$name" --json |
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
        echo "| site | kinds | answers stored | of them HTML pages | the rest | seconds | answers/s | the rest /s | CPU s | peak RSS MiB |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
        local row figures stored elapsed cpu rss html_pages
        for spec in 'html|0|["html"]|pages' 'images|1|["html", "image"]|images' \
            'pdf|2|["html", "pdf"]|PDFs'; do
            IFS='|' read -r name index kinds what <<<"$spec"
            html_pages=$(awk -v n="$name" '$1 == n { print $2 }' "$site/pages")
            row=$(kinds_crawl "$name" "$(kinds_site_port "$index")" "$kinds")
            figures=${row%|*}
            stored=${row#*|}
            read -r elapsed cpu rss <<<"$figures"
            # The html site's "rest" is its pages themselves.
            [ "$name" = html ] && html_pages=0
            awk -v n="$name" -v k="$kinds" -v s="$stored" -v h="$html_pages" -v w="$what" \
                -v e="$elapsed" -v u="$cpu" -v r="$rss" 'BEGIN {
                printf "| %s | `%s` | %d | %d | %d %s | %.1f | %.0f | %.0f | %.1f | %.0f |\n",
                    n, k, s, h, s - h, w, e, s / e, (s - h) / e, u, r / 1024 }'
        done
    } >"$work/kinds.md"
    kinds_stop_nginx
    cat "$work/kinds.md"
}
