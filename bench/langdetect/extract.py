#!/usr/bin/env python3
"""Make data/pages.jsonl for the language-detector benchmark (issue 39).

Pages come from Debian's documentation packages (see RESULTS.md for the apt-get line):
gimp-help-{de,es,fr,ru,ja,en,el} (/usr/share/gimp/2.0/help/LANG/*.html) and
debian-reference-{de,es,it,pt,ja,zh-cn} (/usr/share/debian-reference/*.LANG.html, one file a
chapter, split here at each <div class="section"> so that a section is a page).

The visible text of a page: everything but <head>, <script>, <style>, tags dropped, runs of
white space folded (newlines kept between blocks).

Truth is the package's language, checked by a judge that is none of the detectors under test:
stop-word counts for the Latin-script languages, script shares for the others, on the first
1 KiB and the first 8 KiB of the text. A page whose two windows agree on another language is
relabelled (gimp-help has untranslated English pages inside the German help); a page whose
windows disagree, or where no language has half of the stop words and twice the next, goes to the set "mixed-found"
(reported on its own, not in the per-language accuracy). Pages under 200 bytes of text are left
out (an empty index page is not a language-detection test).

Sets: main (up to 200 pages a language, sampled with a fixed seed), short (a title and the next
20 words), codeonly (the <pre> blocks of a debian-reference section, nothing else; truth
"none"), codeheavy (sections whose text is mostly <pre>; truth the page's language), mixed (the
first half KiB of a gimp-help page in English then the same page in German, and the other way
round), symbols (digits and punctuation only; truth "none"), script (Thai, Hindi, Arabic, Korean
from the message catalogues in /usr/share/locale: UI strings, not prose).
"""

import glob
import gettext
import html.parser
import json
import os
import random
import re
import sys
import unicodedata

OUT = sys.argv[1] if len(sys.argv) > 1 else "data/pages.jsonl"
PER_LANG = 200
rng = random.Random(39)

GIMP = "/usr/share/gimp/2.0/help"
DEBREF = "/usr/share/debian-reference"


class Text(html.parser.HTMLParser):
    SKIP = {"script", "style", "head", "noscript", "template"}
    BLOCK = {"p", "div", "br", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6",
             "pre", "dt", "dd", "table", "section", "blockquote", "title"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.pre_parts = []
        self.skip = 0
        self.pre = 0
        self.title = None
        self.in_h = 0
        self.h_parts = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        if tag == "pre":
            self.pre += 1
        if tag in ("h1", "h2", "h3") and self.title is None:
            self.in_h += 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag == "pre" and self.pre:
            self.pre -= 1
            self.pre_parts.append("\n")
        if tag in ("h1", "h2", "h3") and self.in_h:
            self.in_h -= 1
            if not self.in_h and self.title is None:
                self.title = fold(" ".join(self.h_parts))
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.skip:
            return
        self.parts.append(data)
        if self.pre:
            self.pre_parts.append(data)
        if self.in_h:
            self.h_parts.append(data)


def fold(s):
    s = re.sub(r"[ \t\r\f\v\u00a0]+", " ", s)
    s = re.sub(r" ?\n[ \n]*", "\n", s)
    return s.strip()


def extract(markup):
    p = Text()
    p.feed(markup)
    p.close()
    return fold("".join(p.parts)), fold("".join(p.pre_parts)), p.title or ""


# --- the judge -------------------------------------------------------------------------------

STOP = {
    "en": "the of and to in is that for it with as on are be this by from or an you can which not use if your",
    "de": "der die das und ist nicht ein eine zu den mit sich des auf für im dem von werden wird auch sie oder wenn",
    "fr": "le la les et des est une un pour dans que qui du en sur pas par au avec ce vous sont peut cette",
    "es": "el la los las y de que en es un una para por con se del al no lo como su más puede este",
    "it": "il la le di che è e un una per con non sono del della si da nel al gli questo può anche",
    "pt": "os as de que e do da em um uma para com não se por no na são ao pode mais este muito também",
}
STOPSETS = {k: set(v.split()) for k, v in STOP.items()}
# Words in two lists count for neither (de "die" vs en, es/pt "de", "que", ...).
_all = {}
for k, ws in STOPSETS.items():
    for w in ws:
        _all[w] = _all.get(w, 0) + 1
UNIQUE = {k: {w for w in ws if _all[w] == 1} for k, ws in STOPSETS.items()}

WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def script_of(ch):
    n = ord(ch)
    if 0x3040 <= n <= 0x30FF:
        return "kana"
    if 0x4E00 <= n <= 0x9FFF or 0x3400 <= n <= 0x4DBF:
        return "han"
    if 0x0400 <= n <= 0x04FF:
        return "cyrillic"
    if 0x0370 <= n <= 0x03FF or 0x1F00 <= n <= 0x1FFF:
        return "greek"
    if 0x0E00 <= n <= 0x0E7F:
        return "thai"
    if ch.isalpha() and n < 0x0250:
        return "latin"
    if ch.isalpha():
        return "other"
    return None


def judge(text):
    """(language, share) of a window of text, by the judge; language None if nothing to go on."""
    counts = {}
    for ch in text:
        s = script_of(ch)
        if s:
            counts[s] = counts.get(s, 0) + 1
    letters = sum(counts.values())
    if letters < 20:
        return None, 0.0
    latin = counts.get("latin", 0)
    cjk = counts.get("kana", 0) + counts.get("han", 0)
    for s, lang in (("cyrillic", "ru"), ("greek", "el"), ("thai", "th")):
        if counts.get(s, 0) / letters >= 0.5:
            return lang, counts[s] / letters
    # CJK characters carry a word's worth each: weigh them 3 against Latin letters.
    if cjk * 3 / (cjk * 3 + latin + 1) >= 0.5:
        if counts.get("kana", 0) >= 0.05 * cjk:
            return "ja", cjk * 3 / (cjk * 3 + latin)
        return "zh", cjk * 3 / (cjk * 3 + latin)
    if latin / letters < 0.5:
        return None, 0.0
    hits = {k: 0 for k in UNIQUE}
    for w in WORD.findall(text.lower()):
        for k, ws in UNIQUE.items():
            if w in ws:
                hits[k] += 1
    total = sum(hits.values())
    if total < 5:
        return None, 0.0
    ranked = sorted(hits, key=hits.get, reverse=True)
    best, second = ranked[0], ranked[1]
    if hits[best] < 2 * hits[second]:
        return best, min(0.49, hits[best] / total)
    return best, hits[best] / total


def truth_of(label, text):
    """The page's truth: label, another language, or 'mixed' (returns (truth, note))."""
    a, sa = judge(text[:1024])
    b, sb = judge(text[:8192])
    if a is None and b is None:
        return label, "unjudged"
    if a == b and sa >= 0.5 and sb >= 0.5:
        return a, "" if a == label else f"relabelled {label}->{a}"
    if a is None and b == label and sb >= 0.5:
        return label, ""
    return "mixed", f"judge 1K={a}:{sa:.2f} 8K={b}:{sb:.2f} package={label}"


# --- sources ---------------------------------------------------------------------------------

def gimp_pages(lang):
    for path in sorted(glob.glob(f"{GIMP}/{lang}/*.html")):
        with open(path, encoding="utf-8", errors="replace") as f:
            yield f"gimp/{lang}/{os.path.basename(path)}", f.read()


def debref_pages(lang):
    code = {"zh": "zh-cn"}.get(lang, lang)
    for path in sorted(glob.glob(f"{DEBREF}/*.{code}.html")):
        with open(path, encoding="utf-8", errors="replace") as f:
            markup = f.read()
        chunks = markup.split('<div class="section"')
        for i, chunk in enumerate(chunks[1:], 1):
            yield f"debref/{os.path.basename(path)}#{i}", "<div" + chunk


SOURCES = {
    "en": [gimp_pages], "de": [gimp_pages, debref_pages], "es": [gimp_pages, debref_pages],
    "fr": [gimp_pages], "ru": [gimp_pages], "el": [gimp_pages], "ja": [gimp_pages, debref_pages],
    "it": [debref_pages], "pt": [debref_pages], "zh": [debref_pages],
}

records = []
notes = []
pools = {}
taken = {}
for lang, srcs in SOURCES.items():
    pool = []
    for src in srcs:
        for pid, markup in src(lang):
            text, pre, title = extract(markup)
            if len(text.encode()) < 200:
                continue
            pool.append((pid, text, pre, title))
    rng.shuffle(pool)
    pools[lang] = pool
    for pid, text, pre, title in pool:
        if taken.get(lang, 0) >= PER_LANG:
            break
        truth, note = truth_of(lang, text)
        if note:
            notes.append(f"{pid}\t{note}")
        nbytes = len(text.encode())
        prebytes = len(pre.encode())
        if prebytes > 0.6 * nbytes:
            # Mostly code: the code-heavy set, not the main one.
            records.append(dict(id=pid, set="codeheavy", truth=truth if truth != "mixed" else lang,
                                text=text))
            continue
        if truth == "mixed":
            records.append(dict(id=pid, set="mixed-found", truth=lang, text=text))
            continue
        if taken.get(truth, 0) >= PER_LANG:
            continue  # enough pages of that language (relabelled English ones, mostly)
        records.append(dict(id=pid, set="main", truth=truth, text=text))
        taken[truth] = taken.get(truth, 0) + 1

# short: a title and the next 20 words, from the main pages
by_id = {}
for lang, pool in pools.items():
    for pid, text, pre, title in pool:
        by_id[pid] = (text, pre, title)
main_recs = [r for r in records if r["set"] == "main"]
per_lang_short = {}
for r in main_recs:
    if per_lang_short.get(r["truth"], 0) >= 30:
        continue
    text, pre, title = by_id[r["id"]]
    if not title:
        continue
    body = text.split(title, 1)[-1]
    words = body.split()
    if r["truth"] in ("ja", "zh"):
        # No spaces between words: 20 words ~ 40 characters.
        short = title + "\n" + "".join(body.split())[:40]
    else:
        short = title + "\n" + " ".join(words[:20])
    per_lang_short[r["truth"]] = per_lang_short.get(r["truth"], 0) + 1
    records.append(dict(id=r["id"] + "#short", set="short", truth=r["truth"], text=short))

# codeonly: the <pre> text of debian-reference sections, nothing else
codeonly = 0
for lang in ("de", "es", "it", "pt", "ja", "zh"):
    for pid, text, pre, title in pools[lang]:
        if codeonly >= 10 * (["de", "es", "it", "pt", "ja", "zh"].index(lang) + 1):
            break
        if pid.startswith("debref/") and len(pre.encode()) >= 400:
            records.append(dict(id=pid + "#pre", set="codeonly", truth="none", text=pre))
            codeonly += 1

# mixed: the same gimp-help page, English then German, and German then English
gimp_en = dict((pid.split("/")[-1], text) for pid, text, _, _ in pools["en"])
pairs = 0
for pid, text, pre, title in pools["de"]:
    if pairs >= 20 or not pid.startswith("gimp/"):
        continue
    name = pid.split("/")[-1]
    en = gimp_en.get(name)
    if not en or len(en.encode()) < 600 or len(text.encode()) < 600:
        continue
    t_de, _ = truth_of("de", text)
    t_en, _ = truth_of("en", en)
    if t_de != "de" or t_en != "en":
        continue
    half = lambda s: s.encode()[:512].decode(errors="ignore")
    if pairs % 2 == 0:
        records.append(dict(id=f"mixed/{name}#en+de", set="mixed", truth="en+de", text=half(en) + "\n" + half(text)))
    else:
        records.append(dict(id=f"mixed/{name}#de+en", set="mixed", truth="de+en", text=half(text) + "\n" + half(en)))
    pairs += 1

# symbols: digits and punctuation only
sym_rng = random.Random(7)
alphabet = "0123456789 .,:;-+*/=<>()[]{}%$#@&|~^_!?\"'\n\t"
samples = [
    "1234 5678 90 -- +++ 3.14159 2024-01-01 12:30:45 $ 100% & * ( ) [ ] { } = < > / \\ | ~ ^",
    "192.168.0.1/24 10.0.0.0/8 ::1 fe80::1 :443 :8080 0x7fff 0o755 0b1010",
    "| 1 | 2 | 3 |\n|---|---|---|\n| 4.5 | 6.7 | 8.9 |\n| 10 | 11 | 12 |",
    "+49 (0)30 123 456-78 / 2026-11-28 / 12:00-18:00 / 1.234,56 EUR",
]
for i in range(16):
    samples.append("".join(sym_rng.choice(alphabet) for _ in range(sym_rng.choice([40, 300, 2000]))))
for i, s in enumerate(samples):
    records.append(dict(id=f"symbols/{i}", set="symbols", truth="none", text=s))

# script: Thai, Hindi, Arabic, Korean UI strings from message catalogues
for lang in ("th", "hi", "ar", "ko"):
    strings = []
    for mo in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo")):
        try:
            with open(mo, "rb") as f:
                cat = gettext.GNUTranslations(f)._catalog
        except Exception:
            continue
        for k, v in cat.items():
            if isinstance(v, str) and k and len(v) > 15 and "%" not in v:
                strings.append(v.strip())
    sym_rng.shuffle(strings)
    for i in range(20):
        buf = []
        size = 0
        while strings and size < 2500:
            s = strings.pop()
            buf.append(s)
            size += len(s.encode())
        if size < 500:
            break
        records.append(dict(id=f"locale/{lang}/{i}", set="script", truth=lang, text="\n".join(buf)))

os.makedirs(os.path.dirname(OUT) or ".", exist_ok=True)
with open(OUT, "w") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
with open(os.path.join(os.path.dirname(OUT) or ".", "judge-notes.tsv"), "w") as f:
    f.write("\n".join(notes) + "\n")

from collections import Counter
c = Counter((r["set"], r["truth"]) for r in records)
for k in sorted(c):
    print(*k, c[k], sep="\t")
print("judge notes:", len(notes), file=sys.stderr)
