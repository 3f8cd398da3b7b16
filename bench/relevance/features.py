#!/usr/bin/env python3
"""MRR@10 per feature of a judged set: what the comments on its queries say they test.

  features.py JUDGED EVAL      # e.g. bench/relevance/gimp-de.toml bench/relevance/data/gimp-de/eval.txt

The judged sets of the GIMP corpora mark what a query deliberately tests in a comment on its
`q` line (`q = "ebenenmaske hinzufugen"  # no umlaut`; several features separated by commas,
a parenthesis is a note, not a feature). This reads those comments, and the per-query rows
of `searchd eval`'s table (EVAL, as bench/relevance/run keeps it in data/CORPUS/eval.txt: one
row per query in the set's order, the `best@ENGINE` ranks first), and prints, per feature and
per engine, the number of queries and their MRR@10 (reciprocal rank of the first best page,
0 beyond 10, as `searchd eval` scores it). Queries with no comment are `plain`.
"""

import re
import sys
import tomllib
from collections import defaultdict


def features(judged_text: str) -> list[list[str]]:
    """The features of each query, in the set's order, from the comment on its `q` line."""
    out = []
    for line in judged_text.splitlines():
        m = re.match(r'\s*q\s*=\s*"(?:[^"\\]|\\.)*"\s*(?:#\s*(.*))?$', line)
        if not m:
            continue
        note = re.sub(r"\(.*?\)", "", m.group(1) or "")
        tags = [t.strip() for t in note.split(",") if t.strip()]
        out.append(tags or ["plain"])
    return out


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    judged_text = open(sys.argv[1], encoding="utf-8").read()
    queries = tomllib.loads(judged_text)["query"]
    tags = features(judged_text)
    if len(tags) != len(queries):
        sys.exit(f"{sys.argv[1]}: {len(tags)} q lines for {len(queries)} queries")
    lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("half ") and "best@" in l)
    engines = [w[len("best@"):] for w in lines[header].split() if w.startswith("best@")]
    rows = lines[header + 1 : header + 1 + len(queries)]
    n = len(engines)
    rr = defaultdict(lambda: defaultdict(list))  # feature -> engine -> reciprocal ranks
    for q, tag_list, row in zip(queries, tags, rows):
        if not row.split()[1:] or q["q"] not in row:
            sys.exit(f"row {row!r} is not query {q['q']!r}")
        ranks = row.split()[-3 * n : -2 * n]
        for tag in tag_list + ["all"]:
            for engine, rank in zip(engines, ranks):
                rr[tag][engine].append(0.0 if rank == "-" or int(rank) > 10 else 1 / int(rank))
    order = sorted((t for t in rr if t not in ("all", "plain")), key=lambda t: (-len(rr[t][engines[0]]), t))
    print(f"{'feature':<14} {'queries':>7} " + " ".join(f"{e:>8}" for e in engines))
    for tag in ["all", "plain"] + order:
        if tag not in rr:
            continue
        count = len(rr[tag][engines[0]])
        means = [sum(rr[tag][e]) / count for e in engines]
        print(f"{tag:<14} {count:>7} " + " ".join(f"{m:>8.3f}" for m in means))


if __name__ == "__main__":
    main()
