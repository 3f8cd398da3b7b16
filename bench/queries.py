#!/usr/bin/env python3
"""Writes bench/queries.txt: the fixed mix of 1,000 queries the query section replays.

    python3 bench/queries.py [CORPUS] > bench/queries.txt

The queries are what people type into a documentation search, drawn from the Rust
documentation itself so that every one names something the index holds (CORPUS defaults to
the rustup docs). The draw is seeded: the same corpus gives the same file. The committed file
is the fixed mix; run this only to make a new one, and say so in the benchmark results.

The mix (shares of 1,000):
- 400 a type and one of its methods, lower-cased ("hashmap entry", "vec extend_from_slice");
- 120 an item alone ("refcell", "phantomdata", "btreeset");
-  60 an item by its path ("std::sync::mpsc::channel");
- 180 a chapter title of the books, as asked ("what is ownership?", "defining an enum");
-  80 an error code, bare or with a word ("e0382", "error e0499");
-  60 a quoted phrase from a chapter title ('"trait objects"');
-  50 a Cargo command or an options chapter ("cargo publish", "codegen options");
-  50 two words with an operator ("iterator -async", "title:mutex lock", "arc OR rc").
"""

import html
import os
import random
import re
import subprocess
import sys

TITLE = re.compile(r"<title>([^<]*)</title>")
METHOD = re.compile(r'id="(?:tymethod|method)\.([a-z_][a-z0-9_]*)"')


def corpus_root():
    if len(sys.argv) > 1:
        return sys.argv[1]
    sysroot = subprocess.run(
        ["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return os.path.join(sysroot, "share/doc/rust/html")


def title_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(4096)
    match = TITLE.search(head)
    return html.unescape(match.group(1)).strip() if match else None


def items(root):
    """(kind, name, module path, file) of every std struct, enum and trait page."""
    found = []
    std = os.path.join(root, "std")
    for directory, _, files in sorted(os.walk(std)):
        for name in sorted(files):
            kind, _, rest = name.partition(".")
            if kind in ("struct", "enum", "trait", "fn", "macro") and rest.endswith(".html"):
                module = os.path.relpath(directory, root).replace(os.sep, "::")
                found.append((kind, rest[: -len(".html")], module, os.path.join(directory, name)))
    return found


def chapters(root):
    """Chapter titles of the books: the part before " - Book Name"."""
    titles = []
    for book in ("book", "reference", "rust-by-example", "nomicon", "cargo", "rustc",
                 "edition-guide", "rustdoc", "embedded-book"):
        for directory, _, files in sorted(os.walk(os.path.join(root, book))):
            for name in sorted(files):
                if not name.endswith(".html") or name in ("print.html", "toc.html", "404.html"):
                    continue
                title = title_of(os.path.join(directory, name))
                if title and " - " in title:
                    chapter = title.rsplit(" - ", 1)[0].strip()
                    if 2 <= len(chapter) <= 60 and "print" not in chapter.lower():
                        titles.append(chapter)
    return sorted(set(titles))


def main():
    root = corpus_root()
    rng = random.Random(7)
    all_items = items(root)
    types = [i for i in all_items if i[0] in ("struct", "enum", "trait")]
    queries = []

    methods = []
    for _, name, _, path in types:
        with open(path, encoding="utf-8", errors="replace") as f:
            names = sorted(set(METHOD.findall(f.read())))
        methods.extend((name.lower(), m) for m in names)
    queries += [f"{t} {m}" for t, m in rng.sample(methods, 400)]

    queries += [name.lower() for _, name, _, _ in rng.sample(types, 120)]
    queries += [f"{module}::{name}" for _, name, module, _ in rng.sample(all_items, 60)]

    titles = chapters(root)
    queries += [t.lower() for t in rng.sample(titles, 180)]

    codes = sorted(f[: -len(".html")] for f in os.listdir(os.path.join(root, "error_codes"))
                   if re.fullmatch(r"E\d{4}\.html", f))
    for code in rng.sample(codes, 80):
        queries.append(code.lower() if rng.random() < 0.5 else f"error {code.lower()}")

    phrases = [t for t in titles if 2 <= len(t.split()) <= 4 and t.replace(" ", "").isalpha()]
    queries += [f'"{t.lower()}"' for t in rng.sample(phrases, 60)]

    commands = [t for t in titles if t.startswith("cargo ") or "-C " in t or "option" in t.lower()]
    queries += [c.lower() for c in rng.sample(commands, 50)]

    pairs = rng.sample(methods, 50)
    forms = ["{t} -{m}", "title:{t} {m}", "{t} OR {m}", "{t} {m} -unsafe", "inurl:{t} {m}"]
    queries += [forms[i % len(forms)].format(t=t, m=m) for i, (t, m) in enumerate(pairs)]

    assert len(queries) == 1000, len(queries)
    rng.shuffle(queries)
    print("# The query section's fixed mix: 1,000 queries, written by bench/queries.py from")
    print("# the Rust documentation; one per line, replayed in order by bench/query.lua.")
    for q in queries:
        print(" ".join(q.split()))


main()
