//! The tokenizer against html5ever's, the reference: both read the same pages (hand-written
//! edge cases, the sample site, and generated soup cut off at every length) and must hand
//! over the same text nodes and tags.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use super::{Content, PageReader, StartTag, read};

/// What a reader is handed, in order.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Text(String),
    Start {
        name: String,
        attrs: Vec<(String, String)>,
        self_closing: bool,
    },
    End(String),
}

/// Records everything it is handed.
#[derive(Default)]
struct Recorder(Vec<Event>);

impl PageReader for Recorder {
    fn wants_text(&self) -> bool {
        true
    }

    fn text(&mut self, text: &str) {
        self.0.push(Event::Text(text.to_string()));
    }

    fn start(&mut self, tag: &StartTag<'_>) {
        self.0.push(Event::Start {
            name: tag.name().to_string(),
            attrs: tag
                .attrs()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            self_closing: tag.self_closing(),
        });
    }

    fn end(&mut self, name: &str) {
        self.0.push(Event::End(name.to_string()));
    }
}

/// html5ever's tokenizer, switched to raw text as [`Content::of`] says, its text tokens
/// gathered into nodes.
#[derive(Default)]
struct Reference {
    events: RefCell<Vec<Event>>,
    node: RefCell<String>,
}

impl Reference {
    fn flush(&self) {
        let node = std::mem::take(&mut *self.node.borrow_mut());
        if !node.is_empty() {
            self.events.borrow_mut().push(Event::Text(node));
        }
    }
}

impl TokenSink for Reference {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::CharacterTokens(text) => self.node.borrow_mut().push_str(&text),
            Token::TagToken(tag) => {
                self.flush();
                let name = tag.name.to_string();
                if tag.kind == TagKind::EndTag {
                    self.events.borrow_mut().push(Event::End(name));
                    return TokenSinkResult::Continue;
                }
                let content = Content::of(&name);
                self.events.borrow_mut().push(Event::Start {
                    name,
                    attrs: tag
                        .attrs
                        .iter()
                        .map(|a| (a.name.local.to_string(), a.value.to_string()))
                        .collect(),
                    self_closing: tag.self_closing,
                });
                return match content {
                    Content::Markup => TokenSinkResult::Continue,
                    Content::Rcdata(_) => TokenSinkResult::RawData(RawKind::Rcdata),
                    Content::Rawtext(_) => TokenSinkResult::RawData(RawKind::Rawtext),
                    Content::Script => TokenSinkResult::RawData(RawKind::ScriptData),
                    Content::Plaintext => TokenSinkResult::Plaintext,
                };
            }
            Token::CommentToken(_) | Token::DoctypeToken(_) | Token::EOFToken => self.flush(),
            Token::NullCharacterToken | Token::ParseError(_) => {}
        }
        TokenSinkResult::Continue
    }
}

fn ours(html: &str) -> Vec<Event> {
    read(html, Recorder::default()).0
}

fn reference(html: &str) -> Vec<Event> {
    let tokenizer = Tokenizer::new(Reference::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.flush();
    tokenizer.sink.events.into_inner()
}

#[track_caller]
fn agree(html: &str) {
    assert_eq!(ours(html), reference(html), "reading {html:?}");
}

#[test]
fn edge_cases_read_as_html5ever_reads_them() {
    let cases = [
        "",
        "plain",
        "<p>a</p>",
        "<P CLASS=X>Up</P>",
        "a < b > c <3 <",
        "</> x </ y </",
        "<a href='1' href=2 HREF=\"3\" b c=d>dup</a>",
        "<a href=\"x\"y=z>no space</a>",
        "<div =a ==b a==c>eq</div>",
        "<img src=a/>v<br/>s<svg/ >",
        "<input value=\"a&amp;b\" data=&lt;&gt; q='&copy=1' r='&copy;=1' s='&copyx' t='&copy'>",
        "R&amp;D &notit; &notin; &copy2024 &#233; &#x20ac; &#X80; &#0; &#xD800; &#; &#x; & &nope;",
        "&#99999999999999;&#128512;&NotEqualTilde;",
        "<!-- c --> <!----> <!--> <!---> <!-- a -- b --!> x <!-- --->y",
        "<!DOCTYPE html PUBLIC \"a>b\"> <!doctype> <! bogus > <? pi ?> </ 3>",
        "<![CDATA[ x ]]> after",
        "<title>T &amp; <b>bold</b></title><textarea>&lt;</textarea >",
        "<title>a</titlex></title>b",
        "<style>p < q { } </STYLE>x<style></style",
        "<script>if (a<b) {}</script>after",
        "<script>a = '<!--'; b = '</script>'; </script>c",
        "<script><!-- <script> </script> still --></script>out",
        "<script><!-- <scriptx> </script>out",
        "<script><!--- -> <!-- --></script>out",
        "<script><!-- <script></script </script> --></script>out",
        "<script><!--<script>-</script>--></script>z",
        "<script></scripty></script >x",
        "<iframe><a href=x></iframe>y",
        "<plaintext><p>all</p>",
        "line\r\nbreak\rcr\n<a title='x\r\ny'>t</a>",
        "nul\0here<ti\0tle a\0=b\0c>x</ti\0tle><title>\0</title>",
        "\u{FEFF}bom <p>ü</p> <ÿ> <a\u{e9}b>é</a\u{e9}b>",
        "<a href=x",
        "<a href='x",
        "text <!-- unclosed",
        "<p/a/b/>",
        "<a b='1'c='2'd>",
        "<xmp><b></xmp><noembed></noembed><noframes>&amp;</noframes>",
        "<script><!--",
        "<script><!-- <script>",
        "<tiTLE>x</TITLE>y",
    ];
    for case in cases {
        agree(case);
    }
}

#[test]
fn the_sample_site_reads_as_html5ever_reads_it() {
    let site = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/site");
    let mut pages = 0;
    let mut dirs = vec![site];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).expect("data/site is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                agree(&std::fs::read_to_string(&path).expect("a UTF-8 page"));
                pages += 1;
            }
        }
    }
    assert!(pages > 20, "only {pages} pages");
}

#[test]
fn generated_soup_cut_anywhere_reads_as_html5ever_reads_it() {
    const PIECES: &[&str] = &[
        "<",
        ">",
        "/",
        "=",
        "'",
        "\"",
        "&",
        "-",
        "!",
        "?",
        " ",
        "\n",
        "\r",
        "\0",
        "a",
        "B",
        "é",
        "<a",
        "</a",
        "<p",
        "</p>",
        "<title>",
        "</title>",
        "<script>",
        "</script>",
        "<style>",
        "</style",
        "<textarea>",
        "<!--",
        "-->",
        "--!>",
        "<!",
        "<!DOCTYPE",
        "<![CDATA[",
        "href=",
        "x='",
        "&amp;",
        "&amp",
        "&copy",
        "&#",
        "&#x",
        "3",
        "F",
        ";",
        "<plaintext>",
        "<iframe>",
        "</iframe>",
        "<script",
        "</SCRIPT>",
        "word ",
        "\t",
        "<svg/>",
        "&notin;",
        "&#x80;",
        "</title ",
        "</script ",
        "<xmp>",
        "</xmp>",
        "<!--<script>",
        "\u{FEFF}",
    ];
    // A fixed xorshift sequence: the same soup every run.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |bound: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % bound as u64) as usize
    };
    for _ in 0..2_000 {
        let mut soup = String::new();
        for _ in 0..1 + next(24) {
            soup.push_str(PIECES[next(PIECES.len())]);
        }
        for end in (0..=soup.len()).filter(|&i| soup.is_char_boundary(i)) {
            agree(&soup[..end]);
        }
    }
}
