//! The WHATWG HTML tokenizer, for reading a page: text nodes, start tags with their
//! attributes, end tags. Comments, doctypes and bogus comments end a text node and are
//! otherwise skipped.
//!
//! Every state of the standard's tokenizer that changes what a reader sees is here: tag and
//! attribute names lowercased, quoted and unquoted values, duplicate attributes dropped (the
//! first wins), character references in text and values (legacy names in values left as
//! written before `=` or a letter), comments ending at `-->`, `--!>`, `<!-->` and `<!--->`,
//! a tag cut off by the end of the page dropped, and the raw states (RCDATA, RAWTEXT, script
//! data with its escaped and double-escaped states, PLAINTEXT) the tree builder switches to.
//! The input stream is preprocessed as the standard says: CR LF and lone CR read as LF, NUL
//! dropped from markup text and replaced elsewhere, a leading byte-order mark dropped. Parse
//! errors are recovered as the standard recovers them and not reported.
//!
//! It works on the page's bytes (every delimiter is ASCII, so slices stay on character
//! boundaries) and finds delimiters with `memchr`: a text node with nothing to decode is
//! handed over as a slice of the page, without a copy. html5ever's tokenizer, which this
//! replaced, reads one character at a time through a queue of buffers; on the benchmark's
//! pages it was a third of a crawl's CPU. Its tokenizer is the reference in the tests.

use std::collections::HashSet;
use std::ops::Range;

use memchr::{memchr, memchr2, memmem};

use super::PageReader;
use super::char_ref::{self, Context};
use super::raw_text::{ends_raw_text, script_end};

/// How the tokenizer reads an element's content: as the tree builder switches it after the
/// element's start tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// Markup: tags, comments and text.
    Markup,
    /// Text with character references up to the element's end tag (`title`, `textarea`).
    Rcdata(&'static str),
    /// Text as written up to the element's end tag (`style`, `iframe`, `xmp`, `noembed`,
    /// `noframes`).
    Rawtext(&'static str),
    /// A script, up to its end tag outside a `<!-- <script>` block.
    Script,
    /// Everything to the end of the page (`plaintext`).
    Plaintext,
}

impl Content {
    /// How the content of an element named `name` (lowercase) is read.
    pub fn of(name: &str) -> Content {
        match name {
            "title" => Content::Rcdata("title"),
            "textarea" => Content::Rcdata("textarea"),
            "style" => Content::Rawtext("style"),
            "iframe" => Content::Rawtext("iframe"),
            "xmp" => Content::Rawtext("xmp"),
            "noembed" => Content::Rawtext("noembed"),
            "noframes" => Content::Rawtext("noframes"),
            "script" => Content::Script,
            "plaintext" => Content::Plaintext,
            _ => Content::Markup,
        }
    }

    /// The element whose content is read as text, if it is read so.
    pub fn raw_element(self) -> Option<&'static str> {
        match self {
            Content::Markup => None,
            Content::Rcdata(name) | Content::Rawtext(name) => Some(name),
            Content::Script => Some("script"),
            Content::Plaintext => Some("plaintext"),
        }
    }
}

/// A start tag as read.
#[derive(Debug)]
pub struct StartTag<'t> {
    name: &'t str,
    /// Attribute names and values, the ranges of `attrs` point in it.
    text: &'t str,
    attrs: &'t [Attr],
    self_closing: bool,
}

impl<'t> StartTag<'t> {
    /// The element's name, ASCII lowercased.
    pub fn name(&self) -> &'t str {
        self.name
    }

    /// Whether the tag ends with `/>` (which only matters for foreign elements such as
    /// `<svg/>`: the tree builder ignores it on HTML elements).
    pub fn self_closing(&self) -> bool {
        self.self_closing
    }

    /// The value of the attribute `name` (lowercase), character references decoded.
    pub fn attr(&self, name: &str) -> Option<&'t str> {
        self.attrs()
            .find(|(n, _)| *n == name)
            .map(|(_, value)| value)
    }

    /// Every attribute as (name, value), in order, names ASCII lowercased.
    pub fn attrs(&self) -> impl Iterator<Item = (&'t str, &'t str)> + use<'t> {
        let text = self.text;
        self.attrs
            .iter()
            .map(move |a| (&text[a.name.clone()], &text[a.value.clone()]))
    }
}

/// One attribute: ranges in the tag's text buffer.
#[derive(Clone, Debug)]
struct Attr {
    name: Range<usize>,
    value: Range<usize>,
}

/// What NUL turns into in text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nul {
    /// Dropped (the tree builder drops it from markup text).
    Dropped,
    /// U+FFFD (raw text, names, values).
    Replaced,
}

/// The tag being read, its buffers kept from one tag to the next.
#[derive(Default)]
struct TagBuf {
    name: String,
    text: String,
    attrs: Vec<Attr>,
    /// The attribute being read repeats an earlier name: it will be dropped.
    duplicate: bool,
    self_closing: bool,
    /// The names of the attributes kept, once a tag has more than [`LINEAR_ATTRS`] (empty
    /// before): a repeat is then found in constant time.
    names: HashSet<String>,
}

/// Attributes compared one by one for a repeated name; past this many, a set of the names
/// is kept. Comparing each new name with every earlier one was quadratic: a tag of 10,000
/// attributes (68 KB) took 56 s in the `html` fuzz target, and a page at the crawler's
/// body limit could have held a parse job for hours.
const LINEAR_ATTRS: usize = 16;

impl TagBuf {
    fn clear(&mut self) {
        self.name.clear();
        self.text.clear();
        self.attrs.clear();
        self.duplicate = false;
        self.self_closing = false;
        self.names.clear();
    }

    fn start_attr(&mut self) {
        self.drop_duplicate();
        let at = self.text.len();
        self.attrs.push(Attr {
            name: at..at,
            value: at..at,
        });
    }

    /// The name is read: a repeated one drops the attribute.
    fn end_attr_name(&mut self) {
        let end = self.text.len();
        let Some((last, earlier)) = self.attrs.split_last_mut() else {
            return;
        };
        last.name.end = end;
        last.value = end..end;
        let name = &self.text[last.name.clone()];
        self.duplicate = if earlier.len() < LINEAR_ATTRS {
            earlier.iter().any(|a| &self.text[a.name.clone()] == name)
        } else {
            if self.names.is_empty() {
                // Kept attributes have distinct names: the set holds each once.
                let text = &self.text;
                self.names
                    .extend(earlier.iter().map(|a| text[a.name.clone()].to_string()));
            }
            !self.names.insert(name.to_string())
        };
    }

    fn push_value(&mut self, piece: &str) {
        self.text.push_str(piece);
        self.value_grew();
    }

    /// Text was added to the value being read.
    fn value_grew(&mut self) {
        if let Some(last) = self.attrs.last_mut() {
            last.value.end = self.text.len();
        }
    }

    fn drop_duplicate(&mut self) {
        if self.duplicate {
            if let Some(attr) = self.attrs.pop() {
                self.text.truncate(attr.name.start);
            }
            self.duplicate = false;
        }
    }
}

/// The text node being read: a stretch of the page not copied yet, and what was copied.
#[derive(Default)]
struct Node {
    verbatim: Range<usize>,
    copied: String,
}

/// The tokenizer over one page.
pub struct Tokenizer<'p> {
    page: &'p str,
    bytes: &'p [u8],
    pos: usize,
    content: Content,
    /// Whether the sink wants the text being read.
    want: bool,
    node: Node,
    tag: TagBuf,
}

impl<'p> Tokenizer<'p> {
    /// A tokenizer at the start of `page`.
    pub fn new(page: &'p str) -> Self {
        let pos = if page.starts_with('\u{FEFF}') { 3 } else { 0 };
        Tokenizer {
            page,
            bytes: page.as_bytes(),
            pos,
            content: Content::Markup,
            want: false,
            node: Node::default(),
            tag: TagBuf::default(),
        }
    }

    /// Reads the whole page into `sink`.
    pub fn run<S: PageReader>(mut self, sink: &mut S) {
        self.want = sink.wants_text();
        while self.pos < self.bytes.len() {
            match self.content {
                Content::Markup => self.markup(sink),
                Content::Rcdata(name) => self.raw(sink, name, true),
                Content::Rawtext(name) => self.raw(sink, name, false),
                Content::Script => self.script(sink),
                Content::Plaintext => {
                    self.push_text(self.pos..self.bytes.len(), Nul::Replaced);
                    self.pos = self.bytes.len();
                }
            }
        }
        self.flush(sink);
    }

    /// The data state: text up to the next token, and that token.
    fn markup<S: PageReader>(&mut self, sink: &mut S) {
        while let Some(at) = self.text_to_lt(true, Nul::Dropped) {
            if self.token(sink, at) {
                return;
            }
            // A `<` that opens no token is text.
            self.push_text(at..at + 1, Nul::Dropped);
        }
    }

    /// Reads text (character references decoded if `references`) up to the next `<`: its
    /// position, with `pos` just after it, or `None` at the end of the page.
    fn text_to_lt(&mut self, references: bool, nul: Nul) -> Option<usize> {
        while self.pos < self.bytes.len() {
            let rest = &self.bytes[self.pos..];
            let found = if references && self.want {
                memchr2(b'<', b'&', rest)
            } else {
                memchr(b'<', rest)
            };
            let Some(offset) = found else {
                break;
            };
            let at = self.pos + offset;
            self.push_text(self.pos..at, nul);
            self.pos = at + 1;
            if self.bytes[at] == b'<' {
                return Some(at);
            }
            self.char_ref(at);
        }
        self.push_text(self.pos..self.bytes.len(), nul);
        self.pos = self.bytes.len();
        None
    }

    /// After the `<` at `at`: reads the token it opens, if it opens one.
    fn token<S: PageReader>(&mut self, sink: &mut S, at: usize) -> bool {
        let next = |i: usize| self.bytes.get(at + i).copied();
        match next(1) {
            Some(b) if b.is_ascii_alphabetic() => {
                self.flush(sink);
                self.tag(sink, at + 1, false);
            }
            Some(b'/') => match next(2) {
                Some(b) if b.is_ascii_alphabetic() => {
                    self.flush(sink);
                    self.tag(sink, at + 2, true);
                }
                Some(b'>') => {
                    // `</>` is dropped.
                    self.flush(sink);
                    self.pos = at + 3;
                }
                None => return false,
                Some(_) => self.bogus_comment(sink, at + 2),
            },
            Some(b'!') => {
                if self.bytes[at + 2..].starts_with(b"--") {
                    self.comment(sink, at + 4);
                } else {
                    // A doctype, a CDATA section outside foreign content, or bogus.
                    self.bogus_comment(sink, at + 2);
                }
            }
            Some(b'?') => self.bogus_comment(sink, at + 1),
            _ => return false,
        }
        true
    }

    /// A comment whose text starts at `from`: it ends at `-->` or `--!>`, or at once with
    /// `<!-->` or `<!--->`.
    fn comment<S: PageReader>(&mut self, sink: &mut S, from: usize) {
        self.flush(sink);
        let rest = &self.bytes[from..];
        let end = if rest.starts_with(b">") {
            1
        } else if rest.starts_with(b"->") {
            2
        } else {
            // Runs of dashes overlap (`--->`): each search starts one past the last find.
            let finder = memmem::Finder::new(b"--");
            let mut from = 0;
            loop {
                let Some(found) = finder.find(&rest[from..]) else {
                    break rest.len();
                };
                let dashes = from + found;
                match rest.get(dashes + 2) {
                    Some(b'>') => break dashes + 3,
                    Some(b'!') if rest.get(dashes + 3) == Some(&b'>') => break dashes + 4,
                    _ => from = dashes + 1,
                }
            }
        };
        self.pos = from + end;
    }

    /// A doctype or bogus comment: up to the next `>`.
    fn bogus_comment<S: PageReader>(&mut self, sink: &mut S, from: usize) {
        self.flush(sink);
        self.pos = memchr(b'>', &self.bytes[from..]).map_or(self.bytes.len(), |i| from + i + 1);
    }

    /// A character reference at the `&` at `at`, in text.
    fn char_ref(&mut self, at: usize) {
        match char_ref::decode(&self.bytes[at + 1..], Context::Text) {
            Some(decoded) => {
                decoded.push_to(self.node_copy());
                self.pos = at + 1 + decoded.len;
            }
            None => self.push_text(at..at + 1, Nul::Dropped),
        }
    }

    /// RCDATA or RAWTEXT: text up to the end tag of `name`.
    fn raw<S: PageReader>(&mut self, sink: &mut S, name: &str, references: bool) {
        while let Some(at) = self.text_to_lt(references, Nul::Replaced) {
            if ends_raw_text(&self.bytes[at..], name) {
                self.end_raw(sink, at);
                return;
            }
            self.push_text(at..at + 1, Nul::Replaced);
        }
    }

    /// Script data: text up to the script's end tag.
    fn script<S: PageReader>(&mut self, sink: &mut S) {
        match script_end(&self.bytes[self.pos..]) {
            Some(offset) => {
                let at = self.pos + offset;
                self.push_text(self.pos..at, Nul::Replaced);
                self.end_raw(sink, at);
            }
            None => {
                self.push_text(self.pos..self.bytes.len(), Nul::Replaced);
                self.pos = self.bytes.len();
            }
        }
    }

    /// The end tag at `at` that ends raw text.
    fn end_raw<S: PageReader>(&mut self, sink: &mut S, at: usize) {
        self.content = Content::Markup;
        self.flush(sink);
        self.tag(sink, at + 2, true);
    }

    /// A start or end tag whose name starts at `from`; hands it to the sink unless the page
    /// ends inside it.
    fn tag<S: PageReader>(&mut self, sink: &mut S, from: usize, end: bool) {
        self.tag.clear();
        match self.read_tag(from) {
            Some(after) => self.pos = after,
            None => {
                // The standard drops a tag the end of the page cuts off.
                self.pos = self.bytes.len();
                return;
            }
        }
        self.tag.drop_duplicate();
        let tag = &self.tag;
        if end {
            sink.end(&tag.name);
        } else {
            sink.start(&StartTag {
                name: &tag.name,
                text: &tag.text,
                attrs: &tag.attrs,
                self_closing: tag.self_closing,
            });
            self.content = Content::of(&tag.name);
        }
        self.want = sink.wants_text();
    }

    /// Reads a tag into `self.tag`: the position after its `>`, or `None` at the end of the
    /// page.
    fn read_tag(&mut self, from: usize) -> Option<usize> {
        #[derive(Clone, Copy)]
        enum State {
            Name,
            BeforeAttrName,
            AttrName,
            AfterAttrName,
            BeforeValue,
            Quoted(u8),
            Unquoted,
            AfterQuoted,
            SelfClosing,
        }
        let bytes = self.bytes;
        let page = self.page;
        let tag = &mut self.tag;
        let mut state = State::Name;
        let mut i = from;
        loop {
            let b = *bytes.get(i)?;
            match state {
                State::Name => match b {
                    b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' => state = State::BeforeAttrName,
                    b'/' => state = State::SelfClosing,
                    b'>' => return Some(i + 1),
                    _ => {
                        let run = name_run(&bytes[i..], false);
                        push_name(&mut tag.name, &page[i..i + run]);
                        i += run;
                        continue;
                    }
                },
                State::BeforeAttrName => match b {
                    b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' => {}
                    b'/' | b'>' => {
                        state = State::AfterAttrName;
                        continue;
                    }
                    b'=' => {
                        tag.start_attr();
                        tag.text.push('=');
                        state = State::AttrName;
                    }
                    _ => {
                        tag.start_attr();
                        state = State::AttrName;
                        continue;
                    }
                },
                State::AttrName => match b {
                    b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>' => {
                        tag.end_attr_name();
                        state = State::AfterAttrName;
                        continue;
                    }
                    b'=' => {
                        tag.end_attr_name();
                        state = State::BeforeValue;
                    }
                    _ => {
                        let run = name_run(&bytes[i..], true);
                        push_name(&mut tag.text, &page[i..i + run]);
                        i += run;
                        continue;
                    }
                },
                State::AfterAttrName => match b {
                    b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' => {}
                    b'/' => state = State::SelfClosing,
                    b'=' => state = State::BeforeValue,
                    b'>' => return Some(i + 1),
                    _ => {
                        tag.start_attr();
                        state = State::AttrName;
                        continue;
                    }
                },
                State::BeforeValue => match b {
                    b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' => {}
                    b'"' | b'\'' => state = State::Quoted(b),
                    b'>' => return Some(i + 1),
                    _ => {
                        state = State::Unquoted;
                        continue;
                    }
                },
                State::Quoted(quote) => {
                    let run = memchr2(quote, b'&', &bytes[i..]).unwrap_or(bytes.len() - i);
                    push_value(tag, &page[i..i + run]);
                    i += run;
                    match bytes.get(i)? {
                        b'&' => i = value_char_ref(tag, bytes, i),
                        _ => {
                            state = State::AfterQuoted;
                            i += 1;
                        }
                    }
                    continue;
                }
                State::Unquoted => match b {
                    b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' => state = State::BeforeAttrName,
                    b'>' => return Some(i + 1),
                    b'&' => {
                        i = value_char_ref(tag, bytes, i);
                        continue;
                    }
                    _ => {
                        let run = bytes[i..]
                            .iter()
                            .position(|b| {
                                matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'>' | b'&')
                            })
                            .unwrap_or(bytes.len() - i);
                        push_value(tag, &page[i..i + run]);
                        i += run;
                        continue;
                    }
                },
                State::AfterQuoted => match b {
                    b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' => state = State::BeforeAttrName,
                    b'/' => state = State::SelfClosing,
                    b'>' => return Some(i + 1),
                    _ => {
                        state = State::BeforeAttrName;
                        continue;
                    }
                },
                State::SelfClosing => match b {
                    b'>' => {
                        tag.self_closing = true;
                        return Some(i + 1);
                    }
                    _ => {
                        state = State::BeforeAttrName;
                        continue;
                    }
                },
            }
            i += 1;
        }
    }

    /// Adds `range` of the page to the text node, as written but for NUL and CR.
    fn push_text(&mut self, range: Range<usize>, nul: Nul) {
        if !self.want || range.is_empty() {
            return;
        }
        let piece = &self.page[range.clone()];
        if memchr2(b'\0', b'\r', piece.as_bytes()).is_some() {
            preprocess(piece, nul, self.node_copy());
        } else if self.node.verbatim.is_empty() {
            self.node.verbatim = range;
        } else if self.node.verbatim.end == range.start {
            self.node.verbatim.end = range.end;
        } else {
            self.node_copy().push_str(piece);
        }
    }

    /// The text node's copied text, with the stretch not copied yet added to it.
    fn node_copy(&mut self) -> &mut String {
        let verbatim = std::mem::take(&mut self.node.verbatim);
        self.node.copied.push_str(&self.page[verbatim]);
        &mut self.node.copied
    }

    /// Hands the text node read so far to the sink.
    fn flush<S: PageReader>(&mut self, sink: &mut S) {
        if self.node.copied.is_empty() {
            if !self.node.verbatim.is_empty() {
                sink.text(&self.page[std::mem::take(&mut self.node.verbatim)]);
            }
        } else {
            self.node_copy();
            sink.text(&self.node.copied);
            self.node.copied.clear();
        }
    }
}

/// Appends `piece` with the input stream preprocessed: CR LF and CR read as LF, NUL as
/// `nul` says.
fn preprocess(piece: &str, nul: Nul, out: &mut String) {
    let mut chars = piece.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\0' if nul == Nul::Dropped => {}
            '\0' => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
}

/// Bytes of a tag or attribute name that go in as they are: up to white space, `/`, `>`, NUL
/// or (in an attribute name) `=`; a NUL alone is one byte.
fn name_run(bytes: &[u8], attribute: bool) -> usize {
    let end = bytes
        .iter()
        .position(|&b| {
            matches!(
                b,
                b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>' | b'\0'
            ) || (attribute && b == b'=')
        })
        .unwrap_or(bytes.len());
    if end == 0 {
        // A NUL: one byte, replaced.
        1
    } else {
        end
    }
}

/// Appends a name run, ASCII lowercased (a NUL as U+FFFD).
fn push_name(out: &mut String, run: &str) {
    if run == "\0" {
        out.push(char::REPLACEMENT_CHARACTER);
        return;
    }
    let start = out.len();
    out.push_str(run);
    out[start..].make_ascii_lowercase();
}

/// Appends a piece of an attribute value, preprocessed.
fn push_value(tag: &mut TagBuf, piece: &str) {
    if memchr2(b'\0', b'\r', piece.as_bytes()).is_some() {
        let mut clean = String::with_capacity(piece.len());
        preprocess(piece, Nul::Replaced, &mut clean);
        tag.push_value(&clean);
    } else {
        tag.push_value(piece);
    }
}

/// A character reference at the `&` at `at` in an attribute value: the position after it.
fn value_char_ref(tag: &mut TagBuf, bytes: &[u8], at: usize) -> usize {
    match char_ref::decode(&bytes[at + 1..], Context::Attribute) {
        Some(decoded) => {
            decoded.push_to(&mut tag.text);
            tag.value_grew();
            at + 1 + decoded.len
        }
        None => {
            tag.push_value("&");
            at + 1
        }
    }
}
