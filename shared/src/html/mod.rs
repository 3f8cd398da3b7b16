//! Reading a page in one streaming pass of a WHATWG tokenizer (`tokenizer.rs`, character
//! references decoded as browsers decode them), without building a document tree: how the
//! crawler reads links and text and the indexer reads titles, headings and body text. The
//! tree and its allocations were most of either's CPU; the pieces of tree-builder knowledge
//! both need are here: which elements switch the tokenizer to raw text ([`Content`]), and
//! where the head ends ([`Head`]).

mod char_ref;
mod raw_text;
mod tokenizer;

pub use tokenizer::{Content, StartTag};

/// What reads a page from [`read`]: whole text nodes and tags, in document order.
pub trait PageReader {
    /// Whether text read now is wanted: text nobody wants is neither decoded nor copied.
    fn wants_text(&self) -> bool;
    /// One text node, whole (a tag, a comment or the end of the page ends a node),
    /// character references decoded, NULs dropped (replaced in raw text), newlines
    /// normalized.
    fn text(&mut self, text: &str);
    /// A start tag. The tokenizer then reads the element's content as [`Content::of`] says.
    fn start(&mut self, tag: &StartTag<'_>);
    /// An end tag, by its lowercased name.
    fn end(&mut self, name: &str);
}

/// Hands every text node and tag of `html` to `reader`, then hands it back.
pub fn read<R: PageReader>(html: &str, mut reader: R) -> R {
    tokenizer::Tokenizer::new(html).run(&mut reader);
    reader
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
    pub fn after_start_tag(self, name: &str) -> Head {
        match self {
            Head::Left => Head::Left,
            _ if name == "body" || !belongs_in_head(name) => Head::Left,
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
fn belongs_in_head(name: &str) -> bool {
    matches!(
        name,
        "html"
            | "head"
            | "base"
            | "basefont"
            | "bgsound"
            | "link"
            | "meta"
            | "title"
            | "noscript"
            | "noframes"
            | "style"
            | "script"
            | "template"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_ends_where_the_tree_builder_ends_it() {
        let head = Head::Before.after_start_tag("meta");
        assert_eq!(head, Head::In);
        assert_eq!(head.after_start_tag("title"), Head::In);
        assert_eq!(head.after_start_tag("div"), Head::Left);
        assert_eq!(head.after_start_tag("body"), Head::Left);
        assert_eq!(Head::Left.after_start_tag("meta"), Head::Left);
        assert!(!text_ends_head(" \n\t"));
        assert!(text_ends_head("\n stray"));
    }

    #[test]
    fn raw_text_elements_switch_the_tokenizer() {
        assert_eq!(Content::of("script"), Content::Script);
        assert_eq!(Content::of("title"), Content::Rcdata("title"));
        assert_eq!(Content::of("xmp").raw_element(), Some("xmp"));
        assert_eq!(Content::of("plaintext"), Content::Plaintext);
        assert_eq!(Content::of("noscript"), Content::Markup);
        assert_eq!(Content::of("div").raw_element(), None);
    }

    /// The `html` fuzz target's hang: a repeated attribute name was looked for among every
    /// earlier attribute, so a tag of n attributes cost n² comparisons (10,000 took 56 s
    /// there). 200,000 distinct names and their repeats read in well under a second now.
    #[test]
    fn a_tag_of_many_attributes_reads_in_linear_time() {
        struct Attrs(Vec<(String, String)>);
        impl PageReader for Attrs {
            fn wants_text(&self) -> bool {
                false
            }
            fn text(&mut self, _: &str) {}
            fn start(&mut self, tag: &StartTag<'_>) {
                let attrs = tag.attrs().map(|(n, v)| (n.to_string(), v.to_string()));
                self.0.extend(attrs);
            }
            fn end(&mut self, _: &str) {}
        }
        let n = 200_000;
        let mut page = String::from("<p");
        for i in 0..n {
            page.push_str(&format!(" a{i}={i}"));
        }
        page.push_str(" A7=repeat a199999=repeat>text");
        let start = std::time::Instant::now();
        let Attrs(attrs) = read(&page, Attrs(Vec::new()));
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!(attrs.len(), n, "repeats are dropped");
        assert_eq!(
            attrs[7],
            ("a7".to_string(), "7".to_string()),
            "the first one wins"
        );
        assert_eq!(attrs[n - 1].1, "199999");
        // Few attributes take the linear path: the same rule.
        let Attrs(few) = read("<p a=1 b=2 A=3 c>", Attrs(Vec::new()));
        assert_eq!(few.len(), 3);
        assert_eq!(few[0].1, "1");
    }
}

#[cfg(test)]
mod tokenizer_tests;
