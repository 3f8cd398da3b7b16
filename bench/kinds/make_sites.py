#!/usr/bin/env python3
"""Writes the three sites of the content-kinds benchmark under OUT: html/ (pages only),
images/ (gallery pages showing JPEG and PNG photos, a tenth of them repeated under a second
name), pdf/ (library pages linking multi-page PDFs), and OUT/pages: how many HTML files each
site has. Deterministic (seeded); needs Pillow (Debian's python3-pil).

    make_sites.py OUT [--pages N] [--images N] [--pdfs N]
"""
import argparse
import os
import random

from PIL import Image

WORDS = ("harbour tide vessel anchor keel rudder mast sail gull pier quay buoy lantern "
         "rope net crab herring dune shingle estuary current swell ebb flood chart compass "
         "beacon channel dock wharf ferry hull deck cabin galley bosun skipper").split()


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def page(title, body):
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head>"
            f"<body><h1>{title}</h1>{body}</body></html>\n")


def html_site(out, pages, rng):
    os.makedirs(out, exist_ok=True)
    for i in range(pages):
        links = "".join(f'<a href="/p{(i * 7 + k) % pages}.html">page {k}</a> '
                        for k in range(1, 6))
        paras = "".join(f"<p>{words(rng, 120)}</p>" for _ in range(5))
        names = [f"p{i}.html"] + (["index.html"] if i == 0 else [])
        for name in names:
            with open(os.path.join(out, name), "w") as f:
                f.write(page(f"Page {i}", paras + f"<nav>{links}</nav>"))


def photo(rng, width, height):
    base = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), rng.uniform(20, 60))
    r = Image.blend(base, noise, 0.5)
    g = noise.rotate(rng.choice([0, 180]))
    b = base.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return Image.merge("RGB", (r, g, b))


def images_site(out, count, rng):
    os.makedirs(os.path.join(out, "img"), exist_ok=True)
    names = []
    for i in range(count):
        if i % 10 == 9 and names:
            # The same bytes under a second name: thumbnailed once.
            src = names[-1]
            name = f"copy{i}" + os.path.splitext(src)[1]
            with open(os.path.join(out, "img", src), "rb") as f:
                data = f.read()
            with open(os.path.join(out, "img", name), "wb") as f:
                f.write(data)
        elif i % 3 == 2:
            name = f"icon{i}.png"
            photo(rng, 256, 256).save(os.path.join(out, "img", name), optimize=False)
        else:
            name = f"photo{i}.jpg"
            w, h = rng.choice([(1200, 800), (1600, 1067), (800, 600)])
            photo(rng, w, h).save(os.path.join(out, "img", name), quality=rng.choice([60, 75, 85]))
        names.append(name)
    per_page = 8
    gallery_pages = (len(names) + per_page - 1) // per_page
    for g in range(gallery_pages):
        imgs = "".join(f'<figure><img src="/img/{n}" alt="{words(rng, 4)}"><figcaption>{words(rng, 10)}</figcaption></figure>'
                       for n in names[g * per_page:(g + 1) * per_page])
        with open(os.path.join(out, f"g{g}.html"), "w") as f:
            f.write(page(f"Gallery {g}", imgs))
    # Every gallery one link from the index: no depth limit in the way.
    links = "".join(f'<li><a href="/g{g}.html">Gallery {g}</a></li>' for g in range(gallery_pages))
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(page("Galleries", f"<ul>{links}</ul>"))
    return gallery_pages + 1


def pdf(rng, title, pages):
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               None,
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
               f"<< /Title ({title}) >>".encode()]
    kids = []
    for p in range(pages):
        lines = " ".join(f"({words(rng, 12)}) Tj T*" for _ in range(40))
        content = f"BT /F1 10 Tf 12 TL 72 760 Td {lines} ET".encode()
        kids.append(f"{len(objects) + 1} 0 R")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {len(objects) + 2} 0 R >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {pages} >>".encode()
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, obj in enumerate(objects):
        offsets.append(len(out))
        out += f"{i + 1} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def pdf_site(out, count, rng):
    os.makedirs(os.path.join(out, "docs"), exist_ok=True)
    for i in range(count):
        with open(os.path.join(out, "docs", f"report{i}.pdf"), "wb") as f:
            f.write(pdf(rng, f"Report {i}", rng.choice([2, 5, 10])))
    per_page = 20
    shelves = (count + per_page - 1) // per_page
    for s in range(shelves):
        links = "".join(f'<li><a href="/docs/report{i}.pdf">Report {i}</a></li>'
                        for i in range(s * per_page, min(count, (s + 1) * per_page)))
        with open(os.path.join(out, f"s{s}.html"), "w") as f:
            f.write(page(f"Shelf {s}", f"<ul>{links}</ul>"))
    links = "".join(f'<li><a href="/s{s}.html">Shelf {s}</a></li>' for s in range(shelves))
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(page("Shelves", f"<ul>{links}</ul>"))
    return shelves + 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--pages", type=int, default=3000)
    parser.add_argument("--images", type=int, default=1200)
    parser.add_argument("--pdfs", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(24)
    html_site(os.path.join(args.out, "html"), args.pages, rng)
    gallery_pages = images_site(os.path.join(args.out, "images"), args.images, rng)
    shelf_pages = pdf_site(os.path.join(args.out, "pdf"), args.pdfs, rng)
    # The HTML pages of each site, for the benchmark to tell pages from images and PDFs.
    with open(os.path.join(args.out, "pages"), "w") as f:
        f.write(f"html {args.pages + 1}\nimages {gallery_pages}\npdf {shelf_pages}\n")


if __name__ == "__main__":
    main()
