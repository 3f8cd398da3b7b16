//! Hosts whose robots.txt answers something other than rules.
//!
//! | host | `/robots.txt` | what a crawler must do |
//! |---|---|---|
//! | `norobots.test` | 404 | crawl freely: all of [`NOROBOTS_PATHS`] |
//! | `forbidden.test` | 403 | fetch nothing else (the stricter reading of 401/403) |
//! | `flaky.test` | 503 | not crawl the host now; retry robots.txt later |
//! | `locked.test` | 401 | fetch nothing else (the stricter reading of 401/403) |
//! | `busy.test` | 429 with `Retry-After: 1` to the first request, then rules (`Disallow: /no.html`) | wait at least a second, read it again, then crawl: never fetch `/no.html` |
//! | `down.test` | 200, allows all | `/` links to [`DOWN_PAGES`] pages `/p/N`, each answering 500: the circuit breaker must halt the host after 50 failures in a row |
//! | `moved.test` | 301 -> `/policies/robots.txt` (302) -> `/rules.txt` | follow the redirects and obey `/rules.txt`: never fetch [`MOVED_DISALLOWED`] |
//!
//! Every host has real pages behind its robots.txt, so a crawler that ignores the answer is
//! caught by the request log, not by a 404.

use warp::reply::Response;

use crate::reply::{html, not_found, page, redirect, text, with_header};

/// Every page of `norobots.test`, all reachable from `/`.
pub const NOROBOTS_PATHS: &[&str] = &["/", "/sourdough.html", "/rye.html", "/oven.html"];

/// The pages of `forbidden.test` (a crawler must fetch none).
pub const FORBIDDEN_PATHS: &[&str] = &["/", "/members.html"];

/// The pages of `flaky.test` (a crawler must fetch none while robots.txt fails).
pub const FLAKY_PATHS: &[&str] = &["/", "/news.html"];

/// Answers `norobots.test`: a small bakery site with no robots.txt at all.
pub(crate) fn norobots(path: &str) -> Response {
    let body = match path {
        "/robots.txt" => return text(404, "404 Not Found\n"),
        "/" => page(
            "Millbrook village bakery",
            "<p>We bake three kinds of bread every morning except Monday, in a wood-fired oven that \
             was built into the old mill house in 1923.</p>\n<ul>\n\
             <li><a href=\"/sourdough.html\">Our sourdough</a></li>\n\
             <li><a href=\"rye.html\">Dark rye</a></li>\n</ul>",
        ),
        "/sourdough.html" => page(
            "Our sourdough",
            "<p>The starter is older than the shop: a jar of flour and water fed twice a day since \
             the first baker arrived. The dough ferments slowly overnight in a cool room, which gives \
             the crumb its open holes and the crust its gentle sourness.</p>\n\
             <p>Loaves are baked on the stone floor of <a href=\"/oven.html\">the oven</a>.</p>",
        ),
        "/rye.html" => page(
            "Dark rye",
            "<p>Rye flour holds little gluten, so the dough is sticky and is baked in tins. Caraway \
             and a spoon of dark treacle give the loaf its colour and its slightly sweet, spicy smell. \
             It keeps for a week wrapped in linen.</p>\n<p><a href=\"/\">Back to the bakery</a></p>",
        ),
        "/oven.html" => page(
            "The oven",
            "<p>The oven is fired with beech and ash at four in the morning. When the bricks glow \
             white the embers are raked out, the floor is swabbed with a wet cloth, and the first \
             loaves go in while the heat is fiercest. Sweet buns follow as it cools.</p>\n\
             <p><a href=\"/sourdough.html\">Back to the sourdough</a></p>",
        ),
        _ => return not_found(),
    };
    html(200, body)
}

/// Answers `forbidden.test`: robots.txt 403, pages that exist.
pub(crate) fn forbidden(path: &str) -> Response {
    match path {
        "/robots.txt" => text(403, "403 Forbidden\n"),
        "/" => html(
            200,
            page(
                "Harbour rowing club",
                "<p>Members' area. Training times, boat bookings and the regatta crew lists are on the \
                 <a href=\"/members.html\">members page</a>.</p>",
            ),
        ),
        "/members.html" => html(
            200,
            page(
                "Members",
                "<p>Crew lists for the summer regatta are posted here each Friday.</p>",
            ),
        ),
        _ => not_found(),
    }
}

/// The pages of `busy.test` a crawler must store once its robots.txt answers.
pub const BUSY_PATHS: &[&str] = &["/", "/yes.html"];

/// Answers `busy.test`: robots.txt says 429 (`Retry-After: 1`) to its first request;
/// `earlier_requests` is how many times this path was asked before.
pub(crate) fn busy(path: &str, earlier_requests: usize) -> Response {
    match path {
        "/robots.txt" if earlier_requests == 0 => {
            with_header(text(429, "429 Too Many Requests\n"), "retry-after", "1")
        }
        "/robots.txt" => text(200, "User-agent: *\nDisallow: /no.html\n"),
        "/" => html(
            200,
            page(
                "Busy bakery",
                "<p><a href=\"/yes.html\">Opening hours</a> and <a href=\"/no.html\">the till</a>.</p>",
            ),
        ),
        "/yes.html" => html(200, page("Opening hours", "<p>Six till noon.</p>")),
        "/no.html" => html(200, page("The till", "<p>Not for robots.</p>")),
        _ => not_found(),
    }
}

/// How many failing pages `down.test` links to.
pub const DOWN_PAGES: usize = 80;

/// Answers `down.test`: a home page linking to [`DOWN_PAGES`] pages that all answer 500.
pub(crate) fn down(path: &str) -> Response {
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => {
            let links: String = (1..=DOWN_PAGES)
                .map(|n| format!("<a href=\"/p/{n}\">{n}</a> "))
                .collect();
            html(200, page("Server room status", &format!("<p>{links}</p>")))
        }
        _ if path.starts_with("/p/") => text(500, "500 Internal Server Error\n"),
        _ => not_found(),
    }
}

/// The page `moved.test`'s redirected robots.txt disallows.
pub const MOVED_DISALLOWED: &str = "/private.html";

/// The pages of `moved.test` a crawler must store.
pub const MOVED_PATHS: &[&str] = &["/", "/open.html"];

/// Answers `moved.test`: robots.txt behind two redirects.
pub(crate) fn moved(path: &str) -> Response {
    match path {
        "/robots.txt" => redirect(301, "/policies/robots.txt"),
        "/policies/robots.txt" => redirect(302, "/rules.txt"),
        "/rules.txt" => text(200, "User-agent: *\nDisallow: /private.html\n"),
        "/" => html(
            200,
            page(
                "Ferry timetable",
                "<p>See the <a href=\"/open.html\">summer sailings</a> and the \
                 <a href=\"/private.html\">crew roster</a>.</p>",
            ),
        ),
        "/open.html" => html(200, page("Summer sailings", "<p>Four crossings a day.</p>")),
        "/private.html" => html(200, page("Crew roster", "<p>Not for robots.</p>")),
        _ => not_found(),
    }
}

/// The pages of `locked.test` (a crawler must fetch none).
pub const LOCKED_PATHS: &[&str] = &["/", "/ledger.html"];

/// Answers `locked.test`: robots.txt 401, pages that exist.
pub(crate) fn locked(path: &str) -> Response {
    match path {
        "/robots.txt" => text(401, "401 Unauthorized\n"),
        "/" => html(
            200,
            page(
                "Allotment society",
                "<p>Plot holders can read the <a href=\"/ledger.html\">rent ledger</a>.</p>",
            ),
        ),
        "/ledger.html" => html(
            200,
            page("Rent ledger", "<p>Rents are due at Michaelmas.</p>"),
        ),
        _ => not_found(),
    }
}

/// Answers `flaky.test`: robots.txt 503 (no `Retry-After`), pages that exist.
pub(crate) fn flaky(path: &str) -> Response {
    match path {
        "/robots.txt" => text(503, "503 Service Unavailable\n"),
        "/" => html(
            200,
            page(
                "Valley weather station",
                "<p>Readings every ten minutes from the station on the church tower. See the \
                 <a href=\"/news.html\">station news</a>.</p>",
            ),
        ),
        "/news.html" => html(
            200,
            page(
                "Station news",
                "<p>The rain gauge was replaced in March after the winter floods.</p>",
            ),
        ),
        _ => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_statuses_and_pages() {
        assert_eq!(norobots("/robots.txt").status(), 404);
        assert_eq!(forbidden("/robots.txt").status(), 403);
        assert_eq!(flaky("/robots.txt").status(), 503);
        assert_eq!(locked("/robots.txt").status(), 401);
        assert_eq!(moved("/robots.txt").status(), 301);
        assert_eq!(busy("/robots.txt", 0).status(), 429);
        assert_eq!(down("/p/7").status(), 500);
        assert_eq!(busy("/robots.txt", 1).status(), 200);
        assert_eq!(moved("/rules.txt").status(), 200);
        for path in LOCKED_PATHS {
            assert_eq!(locked(path).status(), 200, "{path}");
        }
        for path in NOROBOTS_PATHS {
            assert_eq!(norobots(path).status(), 200, "{path}");
        }
        for path in FORBIDDEN_PATHS {
            assert_eq!(forbidden(path).status(), 200, "{path}");
        }
        for path in FLAKY_PATHS {
            assert_eq!(flaky(path).status(), 200, "{path}");
        }
        assert_eq!(norobots("/missing.html").status(), 404);
    }
}
