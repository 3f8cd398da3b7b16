#!/usr/bin/env python3
"""A generated web for bench/exchange, served on loopback: HOSTS hosts named hH.xchg.test, each
of PAGES pages /pI.html (I from 0). Page I links to I+1, 2I+1 and 2I+2 of its host (so a
crawl from /p0.html reaches every page) and to CROSS pseudo-random pages of other hosts, each
with an anchor text of eight words; the body is a paragraph of forty words. Everything is a
function of (host, page): two runs serve the same web.

    exchange_web.py PORT HOSTS PAGES CROSS
"""

import random
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORDS = (
    "river stone harbor lantern meadow copper violet orbit summit canyon ember falcon "
    "glacier harvest island jasmine kettle ledger marble nectar oyster pepper quartz "
    "saffron timber umbra velvet willow yarrow zephyr anchor beacon cedar delta fjord"
).split()


def page(host, number, hosts, pages, cross):
    rng = random.Random(host * 1_000_003 + number)
    links = [
        (f"/p{j}.html", f"next {j}")
        for j in (number + 1, 2 * number + 1, 2 * number + 2)
        if j < pages
    ]
    for _ in range(cross):
        other = (host + 1 + rng.randrange(hosts - 1)) % hosts
        target = rng.randrange(pages)
        anchor = " ".join(rng.choice(WORDS) for _ in range(8))
        links.append((f"http://h{other}.xchg.test:{PORT}/p{target}.html", anchor))
    body = " ".join(rng.choice(WORDS) for _ in range(40))
    items = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links)
    title = f"h{host} page {number} {rng.choice(WORDS)}"
    return (
        f"<!doctype html><html><head><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{body}</p><ul>{items}</ul></body></html>"
    ).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        host = self.headers.get("Host", "").split(":")[0]
        try:
            h = int(host.split(".")[0][1:])
            assert self.path.startswith("/p") and self.path.endswith(".html")
            number = int(self.path[2:-5])
            assert 0 <= h < HOSTS and 0 <= number < PAGES
        except (ValueError, AssertionError, IndexError):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = page(h, number, HOSTS, PAGES, CROSS)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    PORT, HOSTS, PAGES, CROSS = (int(a) for a in sys.argv[1:5])
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
