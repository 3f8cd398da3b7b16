//! `ByUrl`: several stores' outlinks as one stream in URL order, as one store holding every
//! page would give them (the link graph's anchors come in source order, so a sharded build
//! sees them as a single store's build does).

use shared::record::Outlinks;

use crate::Error;

/// Merges iterators that each yield `(url, T)` (outlinks, or links from other machines) in
/// URL order into one in URL order; an error is passed on as soon as it is seen.
pub(crate) struct ByUrl<I: Iterator<Item = Result<(String, T), Error>>, T = Outlinks> {
    sources: Vec<I>,
    /// The next item of each source, read ahead.
    heads: Vec<Option<I::Item>>,
}

impl<T, I: Iterator<Item = Result<(String, T), Error>>> ByUrl<I, T> {
    /// Over `sources`, each in URL order.
    pub(crate) fn new(mut sources: Vec<I>) -> Self {
        let heads = sources.iter_mut().map(Iterator::next).collect();
        Self { sources, heads }
    }
}

impl<T, I: Iterator<Item = Result<(String, T), Error>>> Iterator for ByUrl<I, T> {
    type Item = Result<(String, T), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut first: Option<(usize, &str)> = None;
        for (i, head) in self.heads.iter().enumerate() {
            match head {
                None => {}
                Some(Err(_)) => {
                    first = Some((i, ""));
                    break;
                }
                Some(Ok((url, _))) if first.is_none_or(|(_, best)| url.as_str() < best) => {
                    first = Some((i, url));
                }
                Some(Ok(_)) => {}
            }
        }
        let (i, _) = first?;
        let next = self.sources[i].next();
        std::mem::replace(&mut self.heads[i], next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(urls: &[&str]) -> std::vec::IntoIter<Result<(String, Outlinks), Error>> {
        urls.iter()
            .map(|url| Ok(((*url).to_string(), Outlinks(Vec::new()))))
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn streams_merge_in_url_order() {
        let merged: Vec<String> = ByUrl::new(vec![
            stream(&["http://a/1", "http://c/1"]),
            stream(&[]),
            stream(&["http://b/1", "http://b/2", "http://d/1"]),
        ])
        .map(|item| item.map(|(url, _)| url).expect("no error"))
        .collect();
        assert_eq!(
            merged,
            [
                "http://a/1",
                "http://b/1",
                "http://b/2",
                "http://c/1",
                "http://d/1"
            ]
        );
    }
}
