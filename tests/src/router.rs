//! `router.test`: a single-page application with a client-side router, the shape React, Vue
//! and Angular's routers give a site. Every route answers the same shell: a static
//! paragraph about the shop (long enough to judge copies by) and an empty `#app` saying
//! "Loading"; `/app.js` reads `location.pathname` and writes the route's title, its
//! `<meta name="description">` and text (each with a word of its own) and its links.
//! Crawled without rendering, the routes are one text under four URLs; rendered, four
//! pages.
//!
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | allows everything |
//! | any path ending in `.html` | the shell (the query does not matter, as on a real app server) |
//! | `/app.js` | the router: the routes of [`ROUTER_ROUTES`], and for any other path a "nothing here" page ([`ROUTER_NOT_FOUND_WORD`]) |
//! | [`ROUTER_HUGE`], [`ROUTER_MANY`] | routes whose script writes 8 MiB of text, or 100,000 links (no page links them) |
//! | [`ROUTER_WANDER`] | a route whose script rewrites `location` every 10 ms without end (no page links it) |
//! | `/broken/*.html` | a shell whose script throws before writing anything: every such route shows "Loading" (a failed render) |
//! | anything else | 404 |
//!
//! Links the script writes on [`ROUTER_HOME`]: every other route, [`ROUTER_VARIANT`] (a
//! route under a query, which renders as that route), [`ROUTER_UNKNOWN`] (two paths no route
//! knows); the shell links [`ROUTER_BROKEN`] statically. The home route's script also
//! fetches [`ROUTER_CROSS_ORIGIN`], on another host of the same address. Every word and path the script
//! writes is spelled in two halves, so no reading of the bytes finds it.

use warp::reply::Response;

use crate::reply::{bytes, html, not_found, text};

/// A route of the app: its path, the title and word its script writes (no title holds
/// another's words, nor the shell's "Harbor Lamp Shop": near copies need similar titles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// Its path on `router.test`.
    pub path: &'static str,
    /// The title the script gives the document.
    pub title: &'static str,
    /// The word only this route's rendered text holds.
    pub word: &'static str,
    /// The word of the `<meta name="description">` its script writes (in no text).
    pub described: &'static str,
}

/// The app's home route: the seed.
pub const ROUTER_HOME: &str = "/index.html";
/// The routes, home first.
pub const ROUTER_ROUTES: [Route; 4] = [
    Route {
        path: ROUTER_HOME,
        title: "Welcome to the quay",
        word: "lumenwharf",
        described: "quaylight",
    },
    Route {
        path: "/a.html",
        title: "Storm lanterns",
        word: "galeglimmer",
        described: "stormcask",
    },
    Route {
        path: "/b.html",
        title: "Brass kettles",
        word: "kettlebrine",
        described: "copperhiss",
    },
    Route {
        path: "/c.html",
        title: "Cotton wicks",
        word: "wickthistle",
        described: "tallowreed",
    },
];
/// A route under a query the app ignores, linked from home: it renders as `/a.html`.
pub const ROUTER_VARIANT: &str = "/a.html?ref=home";
/// Paths no route knows, linked from home: each renders the app's "nothing here" text.
pub const ROUTER_UNKNOWN: [&str; 2] = ["/gone.html", "/lost.html"];
/// The word of the app's "nothing here" text.
pub const ROUTER_NOT_FOUND_WORD: &str = "emptyquay";
/// Routes of the broken app (its script throws): both show only the shell.
pub const ROUTER_BROKEN: [&str; 2] = ["/broken/one.html", "/broken/two.html"];
/// A route whose script writes [`ROUTER_HUGE_BYTES`] of text: more than a render keeps.
pub const ROUTER_HUGE: &str = "/huge.html";
/// Bytes of text the script of [`ROUTER_HUGE`] writes.
pub const ROUTER_HUGE_BYTES: usize = 8 << 20;
/// A route whose script writes [`ROUTER_MANY_LINKS`] links (`/i/0` ..), as a route list of a
/// large catalogue does.
pub const ROUTER_MANY: &str = "/many.html";
/// Links the script of [`ROUTER_MANY`] writes.
pub const ROUTER_MANY_LINKS: usize = 100_000;
/// A route whose script sends the page to another address of the app every 10 ms, without
/// end (`/wander-N.html`): a render must not follow it.
pub const ROUTER_WANDER: &str = "/wander.html";
/// The paths [`ROUTER_WANDER`] sends the page to start with this.
pub const ROUTER_WANDER_TO: &str = "/wander-";
/// What the script of [`ROUTER_HOME`] also fetches, on another origin of the same address
/// (every test host is 127.0.0.1): `scripts.test`'s menu.
pub const ROUTER_CROSS_ORIGIN: (&str, &str) = ("scripts.test", "/api/menu.json");
/// A word of the shell's static paragraph, on every route with or without rendering.
pub const ROUTER_SHELL_WORD: &str = "chandlery";

/// Answers one request to `router.test` (the query does not matter).
pub(crate) fn respond(path: &str) -> Response {
    match path {
        "/robots.txt" => text(200, "User-agent: *\nAllow: /\n"),
        "/app.js" => bytes(200, "text/javascript; charset=utf-8", app_js()),
        "/broken.js" => bytes(
            200,
            "text/javascript; charset=utf-8",
            "throw new Error('the bundle failed to load');\n",
        ),
        _ if path.starts_with("/broken/") && path.ends_with(".html") => {
            html(200, shell("/broken.js"))
        }
        _ if path.ends_with(".html") => html(200, shell("/app.js")),
        _ => not_found(),
    }
}

/// The shell every route answers, loading `script`.
fn shell(script: &str) -> String {
    let broken = ROUTER_BROKEN
        .iter()
        .map(|path| format!("<a href=\"{path}\">an old catalogue</a>"))
        .collect::<Vec<_>>()
        .join(" and ");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Harbor Lamp Shop</title>\
         <script src=\"{script}\" defer></script></head>\n\
         <body><main>\n<div id=\"app\"><p>Loading</p></div>\n\
         <section><p>The Harbor Lamp Shop is a {ROUTER_SHELL_WORD} by the old quay. Since the \
         lighthouse was built we have sold lamps, lanterns, kettles and wicks to the boats that \
         put in for the night, and we still mend what the sea breaks. Ask at the counter for \
         parts that are no longer made; the workshop behind the shop can turn most of them on \
         the lathe within a week.</p>\n<p>Older pages: {broken}.</p></section>\n\
         </main></body></html>\n"
    )
}

/// A JavaScript expression for `word` that does not spell it whole: `('galegl' + 'immer')`.
fn halves(word: &str) -> String {
    let (head, tail) = word.split_at(word.len() / 2);
    format!("('{head}' + '{tail}')")
}

/// The router: the route of `location.pathname` (or "nothing here"), its title, text and
/// links written with DOM calls into `#app`.
fn app_js() -> String {
    let route = |route: &Route, links: &[&str]| {
        // A link with a query is spelled as its path's halves and the query.
        let links = links
            .iter()
            .map(|link| match link.split_once('?') {
                Some((path, query)) => format!("{} + '?{query}'", halves(path)),
                None => halves(link),
            })
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "[{}]: {{ title: '{}', text: 'Today in the window: ' + {} + ', as the season \
             asks.', description: 'Aisle of the ' + {}, links: [{links}] }}",
            halves(route.path),
            route.title,
            halves(route.word),
            halves(route.described),
        )
    };
    let [home, a, b, c] = ROUTER_ROUTES;
    let mut home_links: Vec<&str> = vec![a.path, b.path, c.path, ROUTER_VARIANT];
    home_links.extend(ROUTER_UNKNOWN);
    let routes = [
        route(&home, &home_links),
        route(&a, &[home.path, b.path]),
        route(&b, &[home.path, c.path]),
        route(&c, &[home.path, a.path]),
    ]
    .join(",\n");
    format!(
        "(function () {{\n\
         var routes = {{\n{routes}\n}};\n\
         if (location.pathname === '{ROUTER_HUGE}') {{\n\
           document.getElementById('app').textContent = 'lantern wick kettle '.repeat({huge});\n\
           return;\n\
         }}\n\
         if (location.pathname === '{ROUTER_MANY}') {{\n\
           var list = [];\n\
           for (var i = 0; i < {ROUTER_MANY_LINKS}; i++) {{ list.push('<a href=\"/i/' + i + '\">' + i + '</a>'); }}\n\
           document.getElementById('app').innerHTML = list.join(' ');\n\
           return;\n\
         }}\n\
         if (location.pathname === '{ROUTER_WANDER}') {{\n\
           var n = 0;\n\
           setInterval(function () {{ n += 1; location.href = '{ROUTER_WANDER_TO}' + n + '.html'; }}, 10);\n\
         }}\n\
         if (location.pathname === {home_path}) {{\n\
           fetch('http://{cross_host}:' + location.port + '{cross_path}').catch(function () {{}});\n\
         }}\n\
         var route = routes[location.pathname] || {{ title: 'Nothing here', \
         text: 'The shelf at this address is an ' + {} + ': nothing is sold here.', \
         links: [{}] }};\n\
         document.title = route.title;\n\
         if (route.description) {{\n\
           var meta = document.createElement('meta');\n\
           meta.setAttribute('name', 'description');\n\
           meta.setAttribute('content', route.description);\n\
           document.head.appendChild(meta);\n\
         }}\n\
         var app = document.getElementById('app');\n\
         app.textContent = '';\n\
         var heading = document.createElement('h1');\n\
         heading.textContent = route.title;\n\
         app.appendChild(heading);\n\
         var text = document.createElement('p');\n\
         text.textContent = route.text;\n\
         app.appendChild(text);\n\
         route.links.forEach(function (href) {{\n\
           var a = document.createElement('a');\n\
           a.setAttribute('href', href);\n\
           a.textContent = 'Go to ' + href;\n\
           var p = document.createElement('p');\n\
           p.appendChild(a);\n\
           app.appendChild(p);\n\
         }});\n\
         }})();\n",
        halves(ROUTER_NOT_FOUND_WORD),
        halves(ROUTER_HOME),
        huge = ROUTER_HUGE_BYTES / "lantern wick kettle ".len(),
        home_path = halves(ROUTER_HOME),
        cross_host = ROUTER_CROSS_ORIGIN.0,
        cross_path = ROUTER_CROSS_ORIGIN.1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_answers_the_same_shell_and_no_script_word_is_spelled_whole() {
        let shell_of = |path: &str| {
            shell(if path.starts_with("/broken/") {
                "/broken.js"
            } else {
                "/app.js"
            })
        };
        let home = shell_of(ROUTER_HOME);
        for route in &ROUTER_ROUTES[1..] {
            assert_eq!(shell_of(route.path), home);
        }
        let script = app_js();
        for word in ROUTER_ROUTES
            .iter()
            .flat_map(|route| [route.word, route.path, route.described])
            .chain([ROUTER_NOT_FOUND_WORD, ROUTER_VARIANT])
            .chain(ROUTER_UNKNOWN)
        {
            assert!(!home.contains(word), "{word} in the shell");
            assert!(!script.contains(word), "{word} spelled whole in app.js");
        }
        assert!(home.contains(ROUTER_SHELL_WORD));
    }
}
