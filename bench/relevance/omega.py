#!/usr/bin/env python3
"""Xapian-Omega as the baseline of bench/relevance: no scoring here, only Omega's results.

  omega.py stage DOCS WORK        # WORK/site: a tree of symlinks to the pages of DOCS
  omega.py query JUDGMENTS WORK [STEMMER]
                                  # each judged query through the Omega CGI: TSV on stdout

`stage` links every HTML file under DOCS (*.html, *.htm) into WORK/site at the same path,
except redirect stubs (a <meta http-equiv="refresh"> in the first 1 KiB: rustdoc writes
15,626 of them, "Redirecting to ...", pages a browser never shows and our crawler follows as
redirects), so omindex sees the site's pages and not its images, scripts, text sources or
stubs. omindex then indexes WORK/site with --follow (bench/relevance/run does that).

`query` writes the omega.conf and the template it needs into WORK, runs the real Omega CGI
binary (/usr/lib/cgi-bin/omega/omega) once per judged query, as a web server would (GET,
QUERY_STRING with P=the query, DB, FMT, HITSPERPAGE=10), and prints `QUERY<TAB>PATH` per
result, best first: the runs file `searchd eval --runs omega=FILE` scores. The template
keeps the one query setting of Omega's stock `query` template (its field prefixes) and prints
each hit's URL; the default operator and query parsing are Omega's own (AND since 1.3.0).

STEMMER (a Xapian::Stem name: german, spanish, russian, english, none...) is for a corpus in
another language, whose database omindex built with `--stemmer=STEMMER`: the query then also
carries STEMMER=STEMMER, and the template (`urls-stem`) sets OmegaScript's `stemmer` from it
before the query is parsed (Omega 1.4 has no CGI parameter for the stemmer: it is the
`stemmer` variable, "english" when unset). Without STEMMER the query and the template are
exactly those of the English corpora (no STEMMER parameter, template `urls`).
"""

import os
import subprocess
import sys
import tomllib
import urllib.parse
from pathlib import Path

OMEGA = os.environ.get("OMEGA_CGI", "/usr/lib/cgi-bin/omega/omega")

# The query-parsing line of /usr/share/xapian-omega/templates/query, then one URL per hit.
TEMPLATE = (
    "$httpheader{Content-Type,text/plain}"
    "$setmap{prefix,,$split{ S B F},title,S,author,A,topic,B}"
    "$hitlist{$field{url}\n}"
)

# The same, with the query's stemmer taken from the CGI parameter STEMMER.
TEMPLATE_STEM = "$set{stemmer,$cgi{STEMMER}}" + TEMPLATE


def is_redirect_stub(path: Path) -> bool:
    with open(path, "rb") as f:
        head = f.read(1024).lower()
    return b'http-equiv="refresh"' in head or b"http-equiv=refresh" in head


def stage(docs: Path, work: Path) -> None:
    site = work / "site"
    if site.exists():
        print(f"omega: {site} already staged", file=sys.stderr)
        return
    pages = stubs = 0
    for root, _dirs, files in os.walk(docs, followlinks=True):
        for name in files:
            if not name.endswith((".html", ".htm")):
                continue
            source = Path(root) / name
            if is_redirect_stub(source):
                stubs += 1
                continue
            link = site / source.relative_to(docs)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(source.resolve())
            pages += 1
    print(f"omega: staged {pages} HTML pages of {docs} ({stubs} redirect stubs left out)")


def query(judgments: Path, work: Path, stemmer: str | None = None) -> None:
    (work / "templates").mkdir(exist_ok=True)
    (work / "log").mkdir(exist_ok=True)
    (work / "templates" / "urls").write_text(TEMPLATE)
    (work / "templates" / "urls-stem").write_text(TEMPLATE_STEM)
    conf = work / "omega.conf"
    conf.write_text(
        f"database_dir {work.resolve()}\n"
        f"template_dir {(work / 'templates').resolve()}\n"
        f"log_dir {(work / 'log').resolve()}\n"
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "OMEGA_CONFIG_FILE": str(conf.resolve()),
        "GATEWAY_INTERFACE": "CGI/1.1",
        "REQUEST_METHOD": "GET",
        "SERVER_NAME": "localhost",
        "SCRIPT_NAME": "/cgi-bin/omega",
    }
    with open(judgments, "rb") as f:
        queries = [q["q"] for q in tomllib.load(f)["query"]]
    for q in queries:
        params = [("P", q), ("DB", "db"), ("FMT", "urls"), ("HITSPERPAGE", "10")]
        if stemmer:
            params[2] = ("FMT", "urls-stem")
            params.append(("STEMMER", stemmer))
        env["QUERY_STRING"] = urllib.parse.urlencode(params)
        out = subprocess.run(
            [OMEGA], env=env, capture_output=True, check=True
        ).stdout.decode("utf-8", "replace")
        # CGI output: headers, a blank line, then the body.
        body = out.replace("\r\n", "\n").split("\n\n", 1)
        if len(body) != 2:
            sys.exit(f"omega: no CGI body for {q!r}: {out[:300]!r}")
        for url in body[1].splitlines():
            if url.strip():
                path = urllib.parse.urlsplit(url.strip()).path.lstrip("/")
                print(f"{q}\t{path}")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "stage":
        stage(Path(sys.argv[2]), Path(sys.argv[3]))
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "query":
        query(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] if len(sys.argv) == 5 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
