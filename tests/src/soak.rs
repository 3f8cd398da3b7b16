//! `soak-N.test`: a generated family of hosts, sized by [`SoakWeb`], for crawls that last from
//! seconds (CI) to an hour (`bench/soak`).
//!
//! Host `n` is one of eight kinds, by `n % 8`:
//!
//! | `n % 8` | kind |
//! |---|---|
//! | 0 | plain; its home page also links to `stalls.test/` and `traps.test/` |
//! | 1 | slow: every page answers after [`SoakWeb::slow`] |
//! | 2 | failing: about one page in six answers 503 to its first request, about one in forty answers 500 always |
//! | 3, 7 | plain |
//! | 4 | robots.txt asks a `Crawl-delay` of [`SoakWeb::crawl_delay_ms`] |
//! | 5 | slow and failing |
//! | 6 | huge: [`HUGE_FACTOR`] times as many pages |
//!
//! Page 0 is `/`, page `i > 0` is `/p/{i}.html`. Page `i` links to `i + 1`, `2i + 1` and
//! `2i + 2` (a binary tree: every page is within a few links of `/`), to two pseudo-random pages
//! of its own host, and one page in ten to a pseudo-random page of another soak host. Every
//! page's text is different (its host and number are in its title and text). robots.txt allows
//! everything. All of it is a pure function of the host number, the page number and the
//! `SoakWeb`, so a test computes what a complete crawl must store ([`SoakWeb::reachable`])
//! from the definition, not from a crawl.

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use warp::reply::Response;

use crate::reply::{html, not_found, page, text};
use crate::words::{Rng, paragraph};

/// How many times as many pages a huge soak host has.
pub const HUGE_FACTOR: usize = 4;

/// The size and pace of the soak hosts. `SoakWeb::NONE` (no hosts) is what
/// [`TestWeb::start`](crate::TestWeb::start) serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoakWeb {
    /// How many hosts, `soak-0.test` to `soak-{hosts - 1}.test`.
    pub hosts: usize,
    /// Pages of an ordinary host, `/` included (at least 1).
    pub pages: usize,
    /// How long a slow host takes to answer a page.
    pub slow: Duration,
    /// The `Crawl-delay` of the hosts that set one, in milliseconds (sent in seconds).
    pub crawl_delay_ms: u64,
}

/// What one soak page answers, by the web's own definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoakAnswer {
    /// 200 every time.
    Page,
    /// 503 to its first request, then 200.
    FailsOnce,
    /// 500 every time.
    Fails,
}

/// One soak host's kind, from its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kind {
    slow: bool,
    failing: bool,
    crawl_delay: bool,
    huge: bool,
    links_out: bool,
}

fn kind(n: usize) -> Kind {
    let k = n % 8;
    Kind {
        slow: k == 1 || k == 5,
        failing: k == 2 || k == 5,
        crawl_delay: k == 4,
        huge: k == 6,
        links_out: k == 0,
    }
}

impl SoakWeb {
    /// No soak hosts.
    pub const NONE: SoakWeb = SoakWeb {
        hosts: 0,
        pages: 1,
        slow: Duration::ZERO,
        crawl_delay_ms: 0,
    };

    /// The name of host `n`.
    pub fn host(n: usize) -> String {
        format!("soak-{n}.test")
    }

    /// Every soak host name, `soak-0.test` first.
    pub fn host_names(&self) -> Vec<String> {
        (0..self.hosts).map(Self::host).collect()
    }

    /// The number of a soak host of this web, from its name.
    pub fn host_number(&self, host: &str) -> Option<usize> {
        let digits = host.strip_prefix("soak-")?.strip_suffix(".test")?;
        let n: usize = digits.parse().ok()?;
        (n < self.hosts && n.to_string() == digits).then_some(n)
    }

    /// How many pages host `n` has.
    pub fn pages_of(&self, n: usize) -> usize {
        let pages = self.pages.max(1);
        if kind(n).huge {
            pages * HUGE_FACTOR
        } else {
            pages
        }
    }

    /// The `Crawl-delay` host `n` asks for, if any.
    pub fn crawl_delay_of(&self, n: usize) -> Option<Duration> {
        kind(n)
            .crawl_delay
            .then(|| Duration::from_millis(self.crawl_delay_ms))
    }

    /// How long host `n` takes to answer a page.
    pub fn answer_time_of(&self, n: usize) -> Duration {
        if kind(n).slow {
            self.slow
        } else {
            Duration::ZERO
        }
    }

    /// What page `i` of host `n` answers.
    pub fn answer_of(&self, n: usize, i: usize) -> SoakAnswer {
        if !kind(n).failing || i == 0 {
            return SoakAnswer::Page;
        }
        match Rng::new(0x50A4_FA11 ^ ((n as u64) << 32) ^ i as u64).below(240) {
            0..=5 => SoakAnswer::Fails,
            6..=45 => SoakAnswer::FailsOnce,
            _ => SoakAnswer::Page,
        }
    }

    /// The path of page `i`.
    pub fn path(i: usize) -> String {
        if i == 0 {
            "/".to_string()
        } else {
            format!("/p/{i}.html")
        }
    }

    fn page_number(&self, n: usize, path: &str) -> Option<usize> {
        if path == "/" {
            return Some(0);
        }
        let digits = path.strip_prefix("/p/")?.strip_suffix(".html")?;
        let i: usize = digits.parse().ok()?;
        (i > 0 && i < self.pages_of(n) && i.to_string() == digits).then_some(i)
    }

    /// The soak pages page `i` of host `n` links to, as `(host, page)`, in document order,
    /// without repeats or itself. (Host 0-mod-8 home pages also link to `stalls.test/` and
    /// `traps.test/`, which are not soak pages.)
    pub fn links_of(&self, n: usize, i: usize) -> Vec<(usize, usize)> {
        let pages = self.pages_of(n);
        let mut out: Vec<(usize, usize)> = Vec::with_capacity(6);
        for j in [i + 1, 2 * i + 1, 2 * i + 2] {
            if j < pages && !out.contains(&(n, j)) {
                out.push((n, j));
            }
        }
        let mut rng = Rng::new(0x50A4 ^ ((n as u64) << 32) ^ i as u64);
        for _ in 0..2 {
            let j = rng.below(pages);
            if j != i && !out.contains(&(n, j)) {
                out.push((n, j));
            }
        }
        if self.hosts > 1 && rng.below(10) == 0 {
            let m = (n + 1 + rng.below(self.hosts - 1)) % self.hosts;
            let j = rng.below(self.pages_of(m));
            out.push((m, j));
        }
        out
    }

    /// Every soak page a crawl seeded with every soak host's `/` reaches, as `(host name,
    /// path)`: a breadth-first walk of [`links_of`](Self::links_of) that follows no link of
    /// a page answering 500 (what a crawler stores, failures included).
    pub fn reachable(&self) -> BTreeSet<(String, String)> {
        self.reachable_from(0..self.hosts)
    }

    /// The same for a crawl seeded with the `/` of the hosts numbered in `roots` only: the
    /// others are reached through links from host to host.
    pub fn reachable_from(
        &self,
        roots: impl IntoIterator<Item = usize>,
    ) -> BTreeSet<(String, String)> {
        let mut seen: BTreeSet<(usize, usize)> = roots.into_iter().map(|n| (n, 0)).collect();
        let mut queue: VecDeque<(usize, usize)> = seen.iter().copied().collect();
        while let Some((n, i)) = queue.pop_front() {
            if self.answer_of(n, i) == SoakAnswer::Fails {
                continue;
            }
            for link in self.links_of(n, i) {
                if seen.insert(link) {
                    queue.push_back(link);
                }
            }
        }
        seen.into_iter()
            .map(|(n, i)| (Self::host(n), Self::path(i)))
            .collect()
    }

    fn body_of(&self, n: usize, i: usize, port: u16) -> String {
        let mut rng = Rng::new(((n as u64) << 32) ^ i as u64 ^ 0x5_0A4B);
        let paragraphs: String = (0..2)
            .map(|_| format!("<p>{}</p>\n", paragraph(&mut rng, 3)))
            .collect();
        let mut links: String = self
            .links_of(n, i)
            .into_iter()
            .map(|(m, j)| {
                let href = if m == n {
                    Self::path(j)
                } else {
                    format!("http://{}:{port}{}", Self::host(m), Self::path(j))
                };
                format!("<li><a href=\"{href}\">Soak host {m}, page {j}</a></li>\n")
            })
            .collect();
        if i == 0 && kind(n).links_out {
            for host in ["stalls.test", "traps.test"] {
                links.push_str(&format!(
                    "<li><a href=\"http://{host}:{port}/\">{host}</a></li>\n"
                ));
            }
        }
        page(
            &format!("Soak host {n}, page {i}"),
            &format!("<p>Page {i} of soak host {n}.</p>\n{paragraphs}<ul>\n{links}</ul>"),
        )
    }

    /// Answers one request to soak host `n`; `earlier_requests` is how many requests for the
    /// same path came before this one.
    pub(crate) async fn respond(
        &self,
        n: usize,
        path: &str,
        earlier_requests: usize,
        port: u16,
    ) -> Response {
        if path == "/robots.txt" {
            let mut rules = String::from("User-agent: *\nAllow: /\n");
            if let Some(delay) = self.crawl_delay_of(n) {
                rules.push_str(&format!("Crawl-delay: {}\n", delay.as_secs_f64()));
            }
            return text(200, rules);
        }
        let Some(i) = self.page_number(n, path) else {
            return not_found();
        };
        let wait = self.answer_time_of(n);
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        match self.answer_of(n, i) {
            SoakAnswer::Fails => text(500, "500 Internal Server Error\n"),
            SoakAnswer::FailsOnce if earlier_requests == 0 => {
                text(503, "503 Service Unavailable: try again\n")
            }
            _ => html(200, self.body_of(n, i, port)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    const WEB: SoakWeb = SoakWeb {
        hosts: 16,
        pages: 60,
        slow: Duration::from_millis(1),
        crawl_delay_ms: 300,
    };

    #[test]
    fn host_names_and_paths_round_trip() {
        assert_eq!(WEB.host_number("soak-15.test"), Some(15));
        for bad in ["soak-16.test", "soak-01.test", "soak-x.test", "soak-1.tes"] {
            assert_eq!(WEB.host_number(bad), None, "{bad}");
        }
        assert_eq!(WEB.page_number(6, "/p/239.html"), Some(239), "a huge host");
        for bad in ["/p/0.html", "/p/60.html", "/p/07.html", "/index.html"] {
            assert_eq!(WEB.page_number(3, bad), None, "{bad}");
        }
    }

    #[test]
    fn every_page_is_reachable_but_those_behind_failures_and_the_mix_is_there() {
        let reachable = WEB.reachable();
        let all: usize = (0..WEB.hosts).map(|n| WEB.pages_of(n)).sum();
        assert!(
            reachable.len() > all * 95 / 100 && reachable.len() <= all,
            "{} of {all}",
            reachable.len()
        );
        let answers: Vec<SoakAnswer> = (0..WEB.hosts)
            .flat_map(|n| (0..WEB.pages_of(n)).map(move |i| (n, i)))
            .map(|(n, i)| WEB.answer_of(n, i))
            .collect();
        for answer in [SoakAnswer::Fails, SoakAnswer::FailsOnce] {
            assert!(answers.contains(&answer), "{answer:?}");
        }
        assert!((0..WEB.hosts).any(|n| WEB.crawl_delay_of(n).is_some()));
        let across = (0..WEB.hosts)
            .flat_map(|n| (0..WEB.pages_of(n)).map(move |i| (n, i)))
            .filter(|&(n, i)| WEB.links_of(n, i).iter().any(|&(m, _)| m != n))
            .count();
        assert!(across > 0, "some links go across hosts");
    }

    #[test]
    fn pages_are_distinct() {
        let bodies: HashSet<String> = (0..WEB.hosts)
            .flat_map(|n| (0..WEB.pages_of(n)).map(move |i| (n, i)))
            .map(|(n, i)| WEB.body_of(n, i, 80))
            .collect();
        let all: usize = (0..WEB.hosts).map(|n| WEB.pages_of(n)).sum();
        assert_eq!(bodies.len(), all);
    }
}
