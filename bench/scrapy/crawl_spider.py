"""The Scrapy peer of bench/run's crawl section (issue 7): a plain CrawlSpider that follows every
link of one site and stores every page it fetches, as our crawler does.

    scrapy runspider bench/scrapy/crawl_spider.py -a url=http://127.0.0.1:18300/ -a out=DIR

Politeness and robots.txt off, 64 concurrent requests, no HTTP cache: Scrapy as a user would
tune it for a site they own. Each response body is written to DIR under its URL path ("/a/"
becomes "a/index.html"), the layout wget -r and spider_cli's download use, so the harness
counts the three the same way.
"""

import os
import re
from urllib.parse import unquote, urlsplit

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class BenchSpider(CrawlSpider):
    name = "sift-bench"
    custom_settings = {
        "ROBOTSTXT_OBEY": False,
        "DOWNLOAD_DELAY": 0,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "AUTOTHROTTLE_ENABLED": False,
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 64,
        "CONCURRENT_REQUESTS_PER_IP": 0,
        "HTTPCACHE_ENABLED": False,
        "DEPTH_LIMIT": 0,
        "COOKIES_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "LOG_LEVEL": "INFO",
    }

    def __init__(self, url, out, *args, **kwargs):
        parts = urlsplit(url)
        self.start_urls = [url]
        self.allowed_domains = [parts.hostname]
        self.out = out
        # Only this host and port: allowed_domains alone ignores the port.
        site = re.escape(f"{parts.scheme}://{parts.netloc}/")
        self.rules = (
            Rule(LinkExtractor(allow=(f"^{site}",)), callback="store", follow=True),
        )
        super().__init__(*args, **kwargs)

    def parse_start_url(self, response, **kwargs):
        return self.store(response)

    def store(self, response):
        path = unquote(urlsplit(response.url).path)
        if path.endswith("/"):
            path += "index.html"
        rel = os.path.normpath(path.lstrip("/")) or "index.html"
        if rel.startswith(".."):
            return
        dest = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(response.body)
        return ()
