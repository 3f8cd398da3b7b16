#!/usr/bin/env python3
"""Counts the corpus's HTML files a crawl fetched, from an nginx log of "$status $bytes $uri".

    count_pages.py ROOT LOG [BASELINE_LOG OUT]

Prints "HTML SOURCE TRANSLATED": distinct .html files of the corpus answered 200, those that
are source pages (under a `src/` folder), and Rust-by-Example pages of a translation
(rust-by-example/LANG/..., LANG a folder of the book holding its own index.html).

With BASELINE_LOG (another crawl's log) and OUT: writes to OUT how many files LOG has and the
baseline lacks, of each kind, and lists those neither source nor translated pages.
"""
import os
import sys
from urllib.parse import unquote


def fetched(root, log):
    """The corpus's HTML files answered 200 in LOG, as paths relative to ROOT."""
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
    return seen


def kinds(root, paths):
    """Splits PATHS into (source pages, translated pages, the rest)."""
    rbe = os.path.join(root, "rust-by-example")
    languages = {
        name
        for name in (os.listdir(rbe) if os.path.isdir(rbe) else [])
        if os.path.isfile(os.path.join(rbe, name, "index.html")) and len(name) <= 5
    }
    source = {p for p in paths if "/src/" in f"/{p}"}
    translated = {
        p
        for p in paths - source
        if p.startswith("rust-by-example/") and p.split("/")[1] in languages
    }
    return source, translated, paths - source - translated


root, log = sys.argv[1], sys.argv[2]
seen = fetched(root, log)
source, translated, _ = kinds(root, seen)
print(len(seen), len(source), len(translated))
if len(sys.argv) == 5:
    only = seen - fetched(root, sys.argv[3])
    source, translated, rest = kinds(root, only)
    with open(sys.argv[4], "w") as out:
        out.write(
            f"{len(only)} HTML files only this crawl fetched: {len(source)} source pages, "
            f"{len(translated)} translated pages, {len(rest)} others\n"
        )
        for path in sorted(rest):
            out.write(f"    {path}\n")
