"""Compares searchd over one index with searchd over shards on the judged queries of
bench/relevance/judgments.toml: for each query, the top 10 URLs in order and their scores.

    python3 bench/shards_compare.py ONE_URL SHARDS_URL JUDGMENTS

Prints one line of figures, then the queries whose top 10 differ and how.
"""
import json
import sys
import tomllib
import urllib.parse
import urllib.request


def top(base, query):
    url = f"{base}/api/search?q={urllib.parse.quote(query)}&per_page=10"
    with urllib.request.urlopen(url, timeout=10) as answer:
        return [(hit["url"], hit["score"]) for hit in json.load(answer)["hits"]]


def main():
    one, shards, judgments = sys.argv[1:4]
    with open(judgments, "rb") as file:
        queries = [judged["q"] for judged in tomllib.load(file)["query"]]
    same_order = same_set = 0
    largest = 0.0
    differing = []
    for query in queries:
        a, b = top(one, query), top(shards, query)
        urls_a, urls_b = [u for u, _ in a], [u for u, _ in b]
        if urls_a == urls_b:
            same_order += 1
            scores = zip((s for _, s in a), (s for _, s in b))
            largest = max([largest] + [abs(x - y) for x, y in scores])
        elif set(urls_a) == set(urls_b):
            same_set += 1
        else:
            only_a = [u for u in urls_a if u not in urls_b]
            only_b = [u for u in urls_b if u not in urls_a]
            differing.append(f"  {query!r}: only one index {only_a}; only shards {only_b}")
    print(
        f"{len(queries)} judged queries: {same_order} the same top 10 in the same order "
        f"(largest score difference {largest:.2g}), {same_set} the same pages in another "
        f"order, {len(differing)} other pages"
    )
    print("\n".join(differing))


if __name__ == "__main__":
    main()
