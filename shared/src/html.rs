//! Reading a page in one streaming pass of html5ever's tokenizer (the WHATWG tokenizer,
//! character references decoded as browsers decode them), without building a document tree:
//! how the crawler reads links and text and the indexer reads titles, headings and body text.
//! The tree and its allocations were most of either's CPU; the pieces of tree-builder
//! knowledge both need are here: which elements switch the tokenizer to raw text, and where
//! the head ends.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{LocalName, local_name};

/// What reads a page from [`read`]: whole text nodes and tags, in document order.
pub trait PageReader {
    /// Whether text read now is wanted: a piece the reader would drop is not buffered.
    fn wants_text(&self) -> bool;
    /// One text node, whole (a tag, a comment or the end of the page ends a node; the
    /// tokenizer hands it over in pieces), character references decoded, NULs dropped.
    fn text(&mut self, text: &str);
    /// A start tag; answers the state the tokenizer goes on in ([`enter_raw`]).
    fn start(&mut self, tag: Tag) -> TokenSinkResult<()>;
    /// An end tag.
    fn end(&mut self, name: &LocalName);
}

/// Hands every text node and tag of `html` to `reader`, then hands it back.
pub fn read<R: PageReader>(html: &str, reader: R) -> R {
    let sink = Sink {
        reader: RefCell::new(reader),
        node: RefCell::default(),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // A sink that never asks to run a script is fed everything at once.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.flush();
    tokenizer.sink.reader.into_inner()
}

/// The tokenizer's sink: gathers the pieces of a text node for a [`PageReader`].
struct Sink<R> {
    reader: RefCell<R>,
    /// The text node being read.
    node: RefCell<String>,
}

impl<R: PageReader> Sink<R> {
    /// Ends the text node being read.
    fn flush(&self) {
        let mut node = self.node.borrow_mut();
        if !node.is_empty() {
            self.reader.borrow_mut().text(&node);
            // The buffer keeps its capacity for the next node.
            node.clear();
        }
    }
}

impl<R: PageReader> TokenSink for Sink<R> {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::CharacterTokens(text) => {
                if self.reader.borrow().wants_text() {
                    self.node.borrow_mut().push_str(&text);
                }
                TokenSinkResult::Continue
            }
            Token::TagToken(tag) => {
                self.flush();
                let mut reader = self.reader.borrow_mut();
                match tag.kind {
                    TagKind::StartTag => reader.start(tag),
                    TagKind::EndTag => {
                        reader.end(&tag.name);
                        TokenSinkResult::Continue
                    }
                }
            }
            Token::CommentToken(_) | Token::DoctypeToken(_) | Token::EOFToken => {
                self.flush();
                TokenSinkResult::Continue
            }
            // The tree builder drops NUL characters in text; parse errors are recovered.
            Token::NullCharacterToken | Token::ParseError(_) => TokenSinkResult::Continue,
        }
    }
}

/// After a start tag: the raw state [`raw_state`] names for it, with the element noted in
/// `raw` (the tokenizer reads its content as text up to its end tag), else `Continue`.
pub fn enter_raw(tag: Tag, raw: &mut Option<LocalName>) -> TokenSinkResult<()> {
    match raw_state(&tag.name) {
        Some(state) => {
            *raw = Some(tag.name);
            state
        }
        None => TokenSinkResult::Continue,
    }
}

/// The raw state a start tag of `name` puts the tokenizer in, as the tree builder would:
/// `<title>` and `<textarea>` read character references but no markup, `<script>`, `<style>`,
/// `<iframe>`, `<xmp>`, `<noembed>` and `<noframes>` read plain text up to their end tag,
/// `<plaintext>` everything to the end. `None` for other elements.
pub fn raw_state(name: &LocalName) -> Option<TokenSinkResult<()>> {
    let kind = match *name {
        local_name!("title") | local_name!("textarea") => RawKind::Rcdata,
        local_name!("script") => RawKind::ScriptData,
        local_name!("style")
        | local_name!("iframe")
        | local_name!("xmp")
        | local_name!("noembed")
        | local_name!("noframes") => RawKind::Rawtext,
        local_name!("plaintext") => return Some(TokenSinkResult::Plaintext),
        _ => return None,
    };
    Some(TokenSinkResult::RawData(kind))
}

/// Where a page stands with its head.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Head {
    /// Nothing but white space and head elements read yet, and no `<head>` or head element.
    #[default]
    Before,
    /// In the head: its text is not the page's.
    In,
    /// The body (or what follows the head).
    Left,
}

impl Head {
    /// After a start tag of `name`: the head ends at `<body>` or an element that does not
    /// belong in a head.
    pub fn after_start_tag(self, name: &LocalName) -> Head {
        match self {
            Head::Left => Head::Left,
            _ if *name == local_name!("body") || !belongs_in_head(name) => Head::Left,
            _ => Head::In,
        }
    }
}

/// Whether text read before the body ends the head (and belongs to the body): anything but
/// HTML white space, which the tree builder leaves in the head.
pub fn text_ends_head(text: &str) -> bool {
    !text
        .trim_start_matches([' ', '\t', '\n', '\x0C', '\r'])
        .is_empty()
}

/// Start tags that keep the parser in the head.
fn belongs_in_head(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("html")
            | local_name!("head")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("title")
            | local_name!("noscript")
            | local_name!("noframes")
            | local_name!("style")
            | local_name!("script")
            | local_name!("template")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_ends_where_the_tree_builder_ends_it() {
        let head = Head::Before.after_start_tag(&local_name!("meta"));
        assert_eq!(head, Head::In);
        assert_eq!(head.after_start_tag(&local_name!("title")), Head::In);
        assert_eq!(head.after_start_tag(&local_name!("div")), Head::Left);
        assert_eq!(head.after_start_tag(&local_name!("body")), Head::Left);
        assert_eq!(Head::Left.after_start_tag(&local_name!("meta")), Head::Left);
        assert!(!text_ends_head(" \n\t"));
        assert!(text_ends_head("\n stray"));
    }

    #[test]
    fn raw_text_elements_switch_the_tokenizer() {
        assert!(matches!(
            raw_state(&local_name!("script")),
            Some(TokenSinkResult::RawData(RawKind::ScriptData))
        ));
        assert!(matches!(
            raw_state(&local_name!("title")),
            Some(TokenSinkResult::RawData(RawKind::Rcdata))
        ));
        assert!(matches!(
            raw_state(&local_name!("plaintext")),
            Some(TokenSinkResult::Plaintext)
        ));
        assert!(raw_state(&local_name!("div")).is_none());
    }
}
