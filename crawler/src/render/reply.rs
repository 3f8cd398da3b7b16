//! An answer the crawler gives the browser for one of a page's requests, and how one kept
//! for the run is marked so that the browser keeps it too.

/// An answer given to the browser.
#[derive(Debug)]
pub(crate) struct Reply {
    /// The status.
    pub status: u16,
    /// The headers, less those about the transfer (the body is handed over decoded).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// Tells the browser to keep it for the run, as the crawler does (see
    /// [`super::cache`]): its tabs then ask no more for it, and no page pays for it twice.
    pub(crate) fn keep_for_the_run(&mut self) {
        self.headers.retain(|(name, _)| {
            !matches!(
                name.as_str(),
                "cache-control" | "expires" | "pragma" | "vary"
            )
        });
        self.headers
            .push(("cache-control".into(), "max-age=86400".into()));
    }
}
