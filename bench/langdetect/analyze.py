#!/usr/bin/env python3
"""Tables for RESULTS.md from data/predictions.tsv and data/speed.tsv (markdown on stdout)."""

import csv
import sys
from collections import Counter, defaultdict

D = sys.argv[1] if len(sys.argv) > 1 else "data"
rows = list(csv.DictReader(open(f"{D}/predictions.tsv"), delimiter="\t"))
speed = list(csv.DictReader(open(f"{D}/speed.tsv"), delimiter="\t"))

DETS = ["whatlang", "whatlang+cjk", "whichlang", "lingua-high", "lingua-low"]
PREFIXES = ["1024", "2048", "4096", "8192"]
MAIN_LANGS = ["en", "de", "fr", "es", "it", "pt", "ru", "el", "ja", "zh"]

by = defaultdict(list)
for r in rows:
    by[(r["detector"], r["prefix"], r["set"])].append(r)


def conf(r):
    return None if r["confidence"] == "-" else float(r["confidence"])


def unsure(r, lingua_min=0.5, whatlang_min=None):
    """The crate's own 'unreliable' signal: whatlang's is_reliable (or a confidence floor),
    lingua's top confidence under `lingua_min`; whichlang has none."""
    if r["pred"] == "-":
        return True
    if r["detector"].startswith("whatlang"):
        if whatlang_min is not None:
            return conf(r) < whatlang_min
        return r["reliable"] != "true"
    if r["detector"].startswith("lingua"):
        return conf(r) < lingua_min
    return False


def pct(a, b):
    return "-" if b == 0 else f"{100 * a / b:.1f}"


def table(head, lines):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in l) + " |" for l in lines]
    return "\n".join(out)


print("## Accuracy on the main set (% right, by truth language)\n")
lines = []
for d in DETS:
    for p in PREFIXES:
        rs = by[(d, p, "main")]
        per = {l: [r for r in rs if r["truth"] == l] for l in MAIN_LANGS}
        accs = [sum(r["pred"] == r["truth"] for r in per[l]) / len(per[l]) for l in MAIN_LANGS]
        overall = sum(r["pred"] == r["truth"] for r in rs)
        lines.append([d, p] + [f"{100 * a:.1f}" for a in accs]
                     + [f"{100 * sum(accs) / len(accs):.1f}", pct(overall, len(rs))])
print(table(["detector", "prefix B"] + MAIN_LANGS + ["macro", "all pages"], lines))
n = Counter(r["truth"] for r in by[("whatlang", "1024", "main")])
print("\nPages per language: " + ", ".join(f"{l} {n[l]}" for l in MAIN_LANGS) + "\n")

print("## Most common errors on the main set (truth→said: count)\n")
for p in ("1024", "4096"):
    lines = []
    for d in DETS:
        c = Counter(f"{r['truth']}→{r['pred']}" for r in by[(d, p, "main")] if r["pred"] != r["truth"])
        lines.append([d, p, sum(c.values()), ", ".join(f"{k}: {v}" for k, v in c.most_common(6))])
    print(table(["detector", "prefix B", "errors", "top confusions"], lines))
    print()

print("## The unsure signal on the main set\n")
print("unsure = whatlang `!is_reliable()` (confidence ≤ 0.9) or no answer; lingua top "
      "confidence < threshold; whichlang has no signal.\n")
lines = []
for d, kw in [("whatlang", {}), ("whatlang+cjk", {}), ("whatlang", {"whatlang_min": 0.5}), ("whatlang", {"whatlang_min": 0.2}),
              ("lingua-high", {"lingua_min": 0.5}), ("lingua-high", {"lingua_min": 0.7}),
              ("lingua-high", {"lingua_min": 0.9}), ("lingua-low", {"lingua_min": 0.5}),
              ("lingua-low", {"lingua_min": 0.7})]:
    label = d + (" is_reliable" if d.startswith("whatlang") and not kw else
                 f" conf<{list(kw.values())[0]}" if kw else "")
    for p in PREFIXES:
        rs = by[(d, p, "main")]
        u = [r for r in rs if unsure(r, **kw)]
        s = [r for r in rs if not unsure(r, **kw)]
        err = [r for r in rs if r["pred"] != r["truth"]]
        err_u = [r for r in u if r["pred"] != r["truth"]]
        err_s = [r for r in s if r["pred"] != r["truth"]]
        lines.append([label, p, pct(len(u), len(rs)), pct(len(err_u), len(u)), pct(len(err_s), len(s)),
                      f"{len(err_u)}/{len(err)}"])
print(table(["detector, rule", "prefix B", "% unsure", "% wrong when unsure", "% wrong when sure",
             "errors flagged"], lines))
print()

print("## Hard cases\n")
print("Right = the truth language; for code-only and symbols-only texts (truth `none`) the right "
      "outcome is no answer or unsure (whatlang is_reliable, lingua conf<0.5). "
      "mixed-found: pages whose own text the judge found mixed (their package's language is the truth "
      "here). mixed: half a KiB of a page in English then the same in German (or the other way); "
      "'first' = says the language of the first half.\n")
SETS = ["short", "codeheavy", "mixed-found", "codeonly", "symbols", "mixed", "script"]
for p in ("1024", "4096"):
    lines = []
    for st in SETS:
        for d in DETS:
            rs = by[(d, p, st)]
            if not rs:
                continue
            if st in ("codeonly", "symbols"):
                ok = sum(unsure(r) for r in rs)
                said = Counter(r["pred"] for r in rs if not unsure(r)).most_common(4)
                lines.append([st, d, len(rs), f"{pct(ok, len(rs))} unsure/none",
                              pct(sum(unsure(r) for r in rs), len(rs)),
                              ", ".join(f"{k}: {v}" for k, v in said)])
            elif st == "mixed":
                first = sum(r["pred"] == r["truth"].split("+")[0] for r in rs)
                second = sum(r["pred"] == r["truth"].split("+")[1] for r in rs)
                lines.append([st, d, len(rs), f"first {first}, second {second}",
                              pct(sum(unsure(r) for r in rs), len(rs)),
                              ", ".join(f"{k}: {v}" for k, v in Counter(r['pred'] for r in rs).most_common(4))])
            else:
                ok = sum(r["pred"] == r["truth"] for r in rs)
                wrong = Counter(f"{r['truth']}→{r['pred']}" for r in rs if r["pred"] != r["truth"])
                lines.append([st, d, len(rs), pct(ok, len(rs)), pct(sum(unsure(r) for r in rs), len(rs)),
                              ", ".join(f"{k}: {v}" for k, v in wrong.most_common(5))])
    print(f"### prefix {p} B\n")
    print(table(["set", "detector", "texts", "% right", "% unsure", "what it said when wrong"], lines))
    print()

print("### Script languages (Thai, Hindi, Arabic, Korean UI strings; Greek, Russian pages) by language, prefix 1024 B\n")
lines = []
for d in DETS:
    cells = []
    for l in ("th", "hi", "ar", "ko"):
        rs = [r for r in by[(d, "1024", "script")] if r["truth"] == l]
        cells.append(f"{sum(r['pred'] == l for r in rs)}/{len(rs)}")
    for l in ("el", "ru"):
        rs = [r for r in by[(d, "1024", "short")] if r["truth"] == l]
        cells.append(f"{sum(r['pred'] == l for r in rs)}/{len(rs)}")
    lines.append([d] + cells)
print(table(["detector", "th", "hi", "ar", "ko", "el (short)", "ru (short)"], lines))
print()
sc = Counter((r["truth"], r["script"]) for r in rows if r["detector"] == "whatlang" and r["prefix"] == "1024"
             and r["set"] in ("script", "main") and r["truth"] in ("th", "hi", "ar", "ko", "el", "ru", "ja", "zh"))
print("whatlang's script (`Info::script`) at 1 KiB: " + ", ".join(f"{t}: {s} ×{c}" for (t, s), c in sorted(sc.items())))
print()

print("## Speed (main set, one thread, best of N passes)\n")
lines = []
for s in speed:
    lines.append([s["detector"], s["prefix"], s["pages"], f"{int(s['bytes']) / 1e6:.2f}", s["mb_per_s"], s["us_per_page"]])
print(table(["detector", "prefix B", "pages", "MB read", "MB/s", "µs/page"], lines))
