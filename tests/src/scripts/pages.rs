//! The HTML, JavaScript and JSON of `scripts.test`. Scripts write into a `<div id="built">`
//! with DOM calls only (`createElement`, `textContent`, `setAttribute`), never markup, so a
//! page's bytes hold exactly the links and words of its static body: every word or path a
//! script writes is spelled in two halves ([`halves`]).

use crate::reply::page;

use super::{
    SCRIPTS_AFTER_ENDLESS, SCRIPTS_AFTER_ENDLESS_WORD, SCRIPTS_BUILT, SCRIPTS_ENDLESS,
    SCRIPTS_ENDLESS_WORD, SCRIPTS_FORBIDDEN_WORDS, SCRIPTS_HOME_WORDS, SCRIPTS_LOOP,
    SCRIPTS_LOOP_WORD, SCRIPTS_STATIC_WORD, SCRIPTS_TICK, ScriptedPage,
};

/// What every script starts with: `para(text)` appends a paragraph to `#built` (or the body)
/// and returns it, `link(href, text)` appends a paragraph holding a link.
const BUILD: &str = "var built = document.getElementById('built') || document.body;\n\
function para(text) { var p = document.createElement('p'); p.textContent = text; \
built.appendChild(p); return p; }\n\
function link(href, text) { var a = document.createElement('a'); a.setAttribute('href', href); \
a.textContent = text; para('').appendChild(a); }\n";

/// A JavaScript expression for `word` (ASCII, no quotes) that does not spell it whole:
/// `('zephy' + 'rine')`.
fn halves(word: &str) -> String {
    let middle = word
        .char_indices()
        .nth(word.chars().count() / 2)
        .map_or(word.len(), |(at, _)| at);
    let (head, tail) = word.split_at(middle);
    format!("('{head}' + '{tail}')")
}

/// A `<script>` running `body` after [`BUILD`], in a function of its own.
fn script(body: &str) -> String {
    format!("<script>\n(function () {{\n{BUILD}{body}\n}})();\n</script>")
}

/// `/`: one static link, a static word, and scripts that write the rest.
pub(super) fn home() -> String {
    let [inline_word, ..] = SCRIPTS_HOME_WORDS;
    let [one, two, ..] = SCRIPTS_BUILT;
    let inline = script(&format!(
        "link({}, 'The first shelf');\n\
         link({}, 'The second shelf');\n\
         para('Dust settles on the ' + {} + ' folios.');\n\
         fetch('/api/menu.json').then(function (r) {{ return r.json(); }})\
         .then(function (menu) {{ link(menu.link, menu.label); para(menu.text); }})\
         .catch(function () {{}});\n\
         fetch('/private/data.json').then(function (r) {{ return r.json(); }})\
         .then(function (data) {{ para(data.text); }}).catch(function () {{}});\n\
         try {{ var socket = new WebSocket('ws://' + location.host + '/ws'); \
         socket.onerror = function () {{}}; }} catch (e) {{}}",
        halves(one.path),
        halves(two.path),
        halves(inline_word),
    ));
    let body = format!(
        "<p>Visitors to the {SCRIPTS_STATIC_WORD} reading room find its shelves set out by \
         its scripts.</p>\n\
         <p>One door stays open: <a href=\"{SCRIPTS_ENDLESS}\">the long corridor</a>.</p>\n\
         <img src=\"/img/pixel.png\" alt=\"\">\n\
         <div id=\"built\"></div>\n{inline}\n\
         <script src=\"/static/app.js\"></script>\n\
         <script src=\"/private/secret.js\"></script>"
    );
    page("The reading room", &body).replace(
        "</head>",
        "<link rel=\"stylesheet\" href=\"/static/site.css\">\n\
         <style>\n@font-face { font-family: \"Facefont\"; \
         src: url(\"/fonts/face.woff2\") format(\"woff2\"); }\n\
         body { font-family: \"Facefont\", serif; }\n</style>\n</head>",
    )
}

/// `/static/app.js`: the second home word and the link to the third built page.
pub(super) fn app_js() -> String {
    let three = SCRIPTS_BUILT[2];
    format!(
        "(function () {{\n{BUILD}para('The lamp over the ' + {} + ' atlas flickers.');\n\
         link({}, 'The third shelf');\n}})();\n",
        halves(SCRIPTS_HOME_WORDS[1]),
        halves(three.path),
    )
}

/// `/api/menu.json`: the link to the fourth built page and the third home word.
pub(super) fn menu_json() -> String {
    format!(
        "{{\"link\": \"{}\", \"label\": \"The fourth shelf\", \
         \"text\": \"A card in the drawer reads {}.\"}}\n",
        SCRIPTS_BUILT[3].path, SCRIPTS_HOME_WORDS[2]
    )
}

/// `/private/secret.js`: writes the first forbidden word, if ever fetched.
pub(super) fn secret_js() -> String {
    format!(
        "(function () {{\n{BUILD}para('Behind the curtain hides a ' + {} + ' ledger.');\n}})();\n",
        halves(SCRIPTS_FORBIDDEN_WORDS[0])
    )
}

/// `/private/data.json`: the second forbidden word, if ever fetched.
pub(super) fn data_json() -> String {
    format!(
        "{{\"text\": \"The locked drawer smells of {}.\"}}\n",
        SCRIPTS_FORBIDDEN_WORDS[1]
    )
}

/// A built page: its word written by its script, a static link back to `/` (and from
/// `/built/two`, to [`SCRIPTS_LOOP`]).
pub(super) fn built(shelf: &ScriptedPage) -> String {
    let name = shelf.path.rsplit('/').next().unwrap_or_default();
    let to_loop = if shelf.path == SCRIPTS_BUILT[1].path {
        format!("<p>Listen: <a href=\"{SCRIPTS_LOOP}\">the ticking clock</a>.</p>\n")
    } else {
        String::new()
    };
    let body = format!(
        "<div id=\"built\"></div>\n<p><a href=\"/\">Back to the reading room</a></p>\n{to_loop}{}",
        script(&format!(
            "para('On this shelf stands the ' + {} + ' volume.');",
            halves(shelf.word)
        ))
    );
    page(&format!("Shelf {name}"), &body)
}

/// [`SCRIPTS_LOOP`]: a fetch every millisecond for ever, and 1000 XHRs at once.
pub(super) fn looping() -> String {
    let body = format!(
        "<p>The {SCRIPTS_LOOP_WORD} clock never stops.</p>\n\
         <p><a href=\"/\">Back to the reading room</a></p>\n\
         <script>\n\
         var n = 0;\n\
         setInterval(function () {{ fetch('{SCRIPTS_TICK}?n=' + n++).catch(function () {{}}); }}, 1);\n\
         for (var i = 0; i < 1000; i++) {{\n\
         var request = new XMLHttpRequest();\n\
         request.open('GET', '{SCRIPTS_TICK}?x=' + i);\n\
         request.send();\n\
         }}\n\
         </script>"
    );
    page("The ticking clock", &body)
}

/// [`SCRIPTS_ENDLESS`]: static text, a static link, then a script that never ends.
pub(super) fn endless() -> String {
    let body = format!(
        "<p>The {SCRIPTS_ENDLESS_WORD} corridor has no far end.</p>\n\
         <p><a href=\"{SCRIPTS_AFTER_ENDLESS}\">A side door</a></p>\n\
         <script>while (true) {{}}</script>"
    );
    page("The long corridor", &body)
}

/// [`SCRIPTS_AFTER_ENDLESS`]: its word written by its script.
pub(super) fn after_endless() -> String {
    let body = format!(
        "<div id=\"built\"></div>\n<p><a href=\"/\">Back to the reading room</a></p>\n{}",
        script(&format!(
            "para('Beyond the side door lies ' + {} + '.');",
            halves(SCRIPTS_AFTER_ENDLESS_WORD)
        ))
    );
    page("The side door", &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_in_halves_is_never_spelled_whole() {
        assert_eq!(halves("zephyrine"), "('zeph' + 'yrine')");
        assert_eq!(halves("/built/one"), "('/buil' + 't/one')");
        assert_eq!(halves(""), "('' + '')");
    }
}
