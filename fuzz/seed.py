#!/usr/bin/env python3
"""Builds the fuzz targets' seed corpus from the project's own fixtures, into
fuzz/corpus-seed/<target>/ (then `bench/fuzz --minimize` or `cargo fuzz cmin` keeps what
adds coverage, into fuzz/corpus/<target>/).

Sources: robots.txt bodies of crawler/src/robots/cases.rs and data/site/robots.txt; the
sample site's pages (data/site) and the HTML of the test web (tests/src); the links of
those pages and the URL table of shared/src/url.rs; the test web's sitemaps (and one
gzipped); the charset tests' bodies; bench/queries.txt; data/example.toml and the config
tests' files. Input formats are the bodies' (fuzz/src/bodies.rs): `agent NUL robots.txt`,
`Content-Type NUL body`, `limit-byte query`.
"""
import gzip
import hashlib
import pathlib
import random
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus-seed"


def rust_strings(path):
    """The string literals of a Rust file, escapes decoded, as bytes."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r'r(#+)"(.*?)"\1', text, re.S):
        out.append(m.group(2).encode())
    text = re.sub(r'r(#+)".*?"\1', "", text, flags=re.S)
    for m in re.finditer(r'(b?)"((?:[^"\\]|\\.)*)"', text, re.S):
        out.append(unescape(m.group(2)))
    return out


def unescape(s):
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = s[i + 1]
        if n == "\n":  # a continued line: skip the break and the indent
            i += 2
            while i < len(s) and s[i] in " \t\n":
                i += 1
            continue
        simple = {"n": b"\n", "r": b"\r", "t": b"\t", "0": b"\0", "\\": b"\\", '"': b'"', "'": b"'"}
        if n in simple:
            out += simple[n]
            i += 2
        elif n == "x":
            out.append(int(s[i + 2 : i + 4], 16))
            i += 4
        elif n == "u":
            end = s.index("}", i)
            out += chr(int(s[i + 3 : end], 16)).encode()
            i = end + 1
        else:
            out += ("\\" + n).encode()
            i += 2
    return bytes(out)


def write(target, data):
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main():
    rng = random.Random(20)
    site_pages = sorted((ROOT / "data" / "site").rglob("*.html"))
    test_web = sorted((ROOT / "tests" / "src").glob("*.rs"))

    # robots
    for s in rust_strings(ROOT / "crawler/src/robots/cases.rs"):
        if b":" in s and b"\n" in s or b"\r" in s:
            write("robots", b"FooBot\0" + s)
            write("robots", s)
    write("robots", (ROOT / "data/site/robots.txt").read_bytes())
    for path in test_web:
        for s in rust_strings(path):
            if s.lower().startswith(b"user-agent"):
                write("robots", s)

    # html and extract
    html = [p.read_bytes() for p in site_pages]
    for path in test_web + [ROOT / "shared/src/html/tokenizer_tests.rs"]:
        html += [s for s in rust_strings(path) if b"<" in s and b">" in s]
    for page in html:
        write("html", page)
        write("extract", page)

    # url
    links = set()
    for page in html:
        links.update(re.findall(rb'(?:href|src)="([^"]*)"', page))
    for s in rust_strings(ROOT / "shared/src/url.rs"):
        links.add(s)
    for link in sorted(links):
        write("url", link)

    # sitemap
    for path in test_web + [ROOT / "crawler/src/sitemap.rs"]:
        for s in rust_strings(path):
            if b"<urlset" in s or b"<sitemapindex" in s or s.startswith(b"http"):
                write("sitemap", s)
                if b"<urlset" in s:
                    write("sitemap", gzip.compress(s, mtime=0))

    # charset
    for path in [ROOT / "crawler/src/charset.rs", ROOT / "tests/src/charsets.rs"]:
        strings = rust_strings(path)
        types = [s for s in strings if s.startswith(b"text/")] or [b"text/html"]
        for s in strings:
            if not s.startswith(b"text/"):
                write("charset", s)
                write("charset", rng.choice(types) + b"\0" + s)

    # query
    queries = (ROOT / "bench/queries.txt").read_text().splitlines()
    for q in queries:
        if q and not q.startswith("#"):
            write("query", bytes([rng.randrange(6)]) + q.encode())

    # config
    write("config", (ROOT / "data/example.toml").read_bytes())
    for s in rust_strings(ROOT / "shared/src/config/tests.rs"):
        if b"=" in s and b"\n" in s:
            write("config", s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
