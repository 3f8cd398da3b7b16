#!/usr/bin/env python3
"""Builds the fuzz targets' seed corpus from the project's own fixtures, into
fuzz/corpus-seed/<target>/ (then `bench/fuzz --minimize` or `cargo fuzz cmin` keeps what
adds coverage, into fuzz/corpus/<target>/).

Sources: robots.txt bodies of crawler/src/robots_fetch/cases.rs and data/site/robots.txt; the
sample site's pages (data/site) and the HTML of the test web (tests/src); the links of
those pages and the URL table of shared/src/url.rs; the test web's sitemaps (and one
gzipped); the charset tests' bodies; bench/queries.txt; data/example.toml and the config
tests' files; the image reader's fixtures (image-reader/src/fixtures) and small images made
here (PNGs whose headers declare huge sizes, a GIF, a BMP, an SVG, HTML); WARC streams made
here, whole and damaged. Input formats are the bodies' (fuzz/src/bodies.rs): `agent NUL
robots.txt`, `Content-Type NUL body`, `limit-byte query`, a plain WARC stream.
"""
import gzip
import hashlib
import struct
import zlib
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


def png(width, height, rows, colour=0):
    """A PNG (8-bit, of the colour type given) declaring width x height, with `rows` as its
    image data."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9))
            + chunk(b"IEND", b""))


def image_seeds():
    """Small images for the `image` target: valid ones and headers that lie."""
    seeds = [path.read_bytes() for path in sorted((ROOT / "image-reader/src/fixtures").iterdir())]
    seeds.append(png(4, 2, b"\0" * 5 * 2))
    seeds.append(png(2, 2, b"\0" + b"\xff\0\0\x80" * 2 + b"\0" + b"\0\0\xff\xff" * 2, colour=6))
    seeds.append(png(16384, 16384, b"\0\0"))
    seeds.append(png(100000, 100000, b"\0\0"))
    seeds.append(b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00"
                 b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
    pixels = b"\x00\x00\xff\x00" * 2
    dib = struct.pack("<IiiHHIIiiII", 40, 2, -1, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    seeds.append(b"BM" + struct.pack("<IHHI", 14 + len(dib) + len(pixels), 0, 0, 14 + len(dib)) + dib + pixels)
    seeds.append(b"<?xml version='1.0'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>")
    seeds.append(b"<!DOCTYPE html><title>served as image/png</title>")
    return seeds


def warc_seeds():
    """Plain WARC streams for the `warc` target: whole records and each kind of damage."""
    def record(kind, block, length=None):
        length = str(len(block)) if length is None else length
        head = f"WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: http://a.test/\r\n"
        return (head + f"Content-Length: {length}\r\n\r\n").encode() + block + b"\r\n\r\n"
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hi</p>"
    return [
        record("warcinfo", b"software: x\r\n") + record("response", http),
        record("response", http, length="12abc") + record("response", http),
        record("response", http, length="3000") + record("request", b"GET / HTTP/1.1\r\n\r\n"),
        record("response", b"x" * 5000) + record("response", http),
        b"garbage before\r\n" + record("response", http),
        record("response", http, length="5") + record("response", http),
        b"WARC/1.0\r\nWARC-Type: response\r\nno colon line\r\nContent-Length: 1\r\n\r\nx\r\n\r\n"
        + record("metadata", b"a: b"),
        b"WARC/1.1\r\nWARC-Type: response\r\n Continued: line\r\n\r\n"
        + record("response", http, length="007"),
        record("response", http)[:40],
    ]


def main():
    rng = random.Random(20)
    site_pages = sorted((ROOT / "data" / "site").rglob("*.html"))
    test_web = sorted((ROOT / "tests" / "src").glob("*.rs"))

    # robots
    for s in rust_strings(ROOT / "crawler/src/robots_fetch/cases.rs"):
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

    # image
    for seed in image_seeds():
        write("image", seed)

    # warc
    for seed in warc_seeds():
        write("warc", seed)

    # config
    write("config", (ROOT / "data/example.toml").read_bytes())
    for s in rust_strings(ROOT / "shared/src/config/tests.rs"):
        if b"=" in s and b"\n" in s:
            write("config", s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
