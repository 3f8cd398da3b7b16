#!/usr/bin/env python3
"""Counts the corpus's HTML files a crawl fetched, from an nginx log of "$status $bytes $uri".

    count_pages.py ROOT LOG

Prints "HTML SOURCE TRANSLATED": distinct .html files of the corpus answered 200, those that
are source pages (under a `src/` folder), and Rust-by-Example pages of a translation
(rust-by-example/LANG/..., LANG a folder of the book holding its own index.html).
"""
import os
import sys
from urllib.parse import unquote

root, log = sys.argv[1], sys.argv[2]
seen = set()
with open(log, errors="replace") as f:
    for line in f:
        parts = line.split(" ", 2)
        if len(parts) < 3 or parts[0] != "200":
            continue
        path = unquote(parts[2].strip()).lstrip("/")
        full = os.path.join(root, path)
        if os.path.isdir(full):
            full = os.path.join(full, "index.html")
        if full.endswith(".html") and os.path.isfile(full):
            seen.add(os.path.relpath(os.path.realpath(full), os.path.realpath(root)))

rbe = os.path.join(root, "rust-by-example")
languages = {
    name
    for name in (os.listdir(rbe) if os.path.isdir(rbe) else [])
    if os.path.isfile(os.path.join(rbe, name, "index.html")) and len(name) <= 5
}
source = sum(1 for p in seen if "/src/" in f"/{p}")
translated = sum(
    1 for p in seen if p.startswith("rust-by-example/") and p.split("/")[1] in languages
)
print(len(seen), source, translated)
