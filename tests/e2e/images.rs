//! Images as a content kind: a crawl with `kinds = ["html", "image"]` fetches the images
//! pages show under robots.txt like any page, reads each one's format, size and JPEG quality
//! from its bytes (not from what the server says), thumbnails the same bytes once, and
//! survives the hostile ones; with images off, none is fetched. Built, the gallery's images
//! are an image index found by what the pages showing them say.

use std::collections::BTreeMap;

use index_format::{ImageFields, current_generation, generation_dir, images_dir};
use shared::record::{ImageInfo, MediaRecord};
use shared::{ContentKind, StoreReader};
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{AllQuery, QueryParser};
use tantivy::schema::Value;
use tantivy::{Index, TantivyDocument};
use testweb::{
    IMAGES_BOAT_WORD, IMAGES_DISALLOWED, IMAGES_HOSTILE, IMAGES_JPEG_QUALITIES, IMAGES_READ,
};

use crate::support::Rig;

fn image(store: &StoreReader, url: &str) -> ImageInfo {
    match store.media(url).expect("readable") {
        Some(MediaRecord::Image(info)) => info,
        other => panic!("{url}: no image record ({other:?})"),
    }
}

#[tokio::test]
async fn images_are_fetched_politely_measured_by_their_bytes_and_thumbnailed_once() {
    let mut rig = Rig::start().await;
    rig.config.kinds = vec!["html".into(), "image".into()];
    rig.config.max_image_bytes = 4 * 1024 * 1024;
    rig.crawl(&[rig.web.url("images.test", "/")]).await;

    let requested = rig.requested("images.test");
    assert_eq!(requested[0], "/robots.txt");
    assert!(
        !requested.iter().any(|p| p == IMAGES_DISALLOWED),
        "{requested:?}"
    );
    let store = rig.store();
    for expected in IMAGES_READ {
        let url = rig.web.url("images.test", expected.path);
        let info = image(&store, &url);
        assert_eq!(
            (info.format.as_str(), info.width, info.height),
            (expected.format, expected.size.0, expected.size.1),
            "{url}"
        );
        assert!(info.thumbnail && info.problem.is_none(), "{url}: {info:?}");
        let thumb = store
            .thumbnail(info.content_hash)
            .expect("readable")
            .expect("a thumbnail under the content hash");
        assert!(
            thumb.width.max(thumb.height) <= 256 && thumb.width > 0,
            "{url}: {thumb:?}"
        );
        assert_eq!(&thumb.bytes[..2], b"\xff\xd8", "a JPEG");
        assert!(
            thumb.bytes.len() < 24 * 1024,
            "{url}: {} bytes",
            thumb.bytes.len()
        );
        let page = store.page(&url).expect("readable").expect("stored");
        assert_eq!(
            (page.kind, page.body_len),
            (ContentKind::Image, 0),
            "no bytes kept"
        );
    }
    let sunset = image(&store, &rig.web.url("images.test", "/img/sunset.jpg"));
    let copy = image(&store, &rig.web.url("images.test", "/img/sunset-copy.jpg"));
    assert_eq!(sunset.content_hash, copy.content_hash, "the same bytes");
    let blurry = image(&store, &rig.web.url("images.test", "/img/blurry.jpg"));
    let (good, poor) = IMAGES_JPEG_QUALITIES;
    assert!(
        sunset.jpeg_quality.is_some_and(|q| q.abs_diff(good) <= 3)
            && blurry.jpeg_quality.is_some_and(|q| q.abs_diff(poor) <= 3),
        "{:?} {:?}",
        sunset.jpeg_quality,
        blurry.jpeg_quality
    );

    // Hostile: stored with what could be read, never decoded past the limits.
    let liar = rig.web.url("images.test", IMAGES_HOSTILE[0]);
    assert_eq!(
        store.media(&liar).expect("readable"),
        None,
        "HTML is no image"
    );
    assert_eq!(
        store.page(&liar).expect("readable").expect("stored").status,
        200
    );
    for (path, side) in [(IMAGES_HOSTILE[1], 16384), (IMAGES_HOSTILE[2], 100_000)] {
        let info = image(&store, &rig.web.url("images.test", path));
        assert_eq!(
            (info.width, info.height, info.thumbnail),
            (side, side, false)
        );
        assert!(
            info.problem.as_deref().is_some_and(|p| p.contains("limit")),
            "{info:?}"
        );
    }
    let endless = rig.web.url("images.test", IMAGES_HOSTILE[3]);
    let info = image(&store, &endless);
    assert_eq!(
        (info.width, info.height, info.thumbnail),
        (4000, 3000, false)
    );
    let page = store.page(&endless).expect("readable").expect("stored");
    assert!(page.truncated, "cut at max_image_bytes");

    // What the gallery shows of its images, for image search.
    let gallery = rig.web.url("images.test", "/");
    let shown = store
        .all_page_images()
        .map(Result::unwrap)
        .find(|(page, _)| *page == gallery)
        .expect("the gallery's images")
        .1;
    let sunset_ref = shown
        .0
        .iter()
        .find(|r| r.url.ends_with("/img/sunset.jpg"))
        .expect("shown");
    assert_eq!(sunset_ref.alt, "sunset over the harbour");
    assert!(sunset_ref.context.contains("harbour"), "{sunset_ref:?}");
}

#[tokio::test]
async fn with_images_off_no_image_is_fetched() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("images.test", "/")]).await;
    let requested = rig.requested("images.test");
    assert!(
        !requested.iter().any(|p| p.starts_with("/img/sunset")),
        "{requested:?}"
    );
    // The linked image file is a link like any other: fetched, its body not read.
    let diagram = rig.web.url("images.test", "/img/diagram.png");
    let store = rig.store();
    let page = store.page(&diagram).expect("readable").expect("stored");
    assert_eq!((page.status, page.body_len), (200, 0));
    assert_eq!(store.media(&diagram).expect("readable"), None);
}

#[tokio::test]
async fn the_gallerys_images_are_indexed_by_what_the_pages_showing_them_say() {
    let mut rig = Rig::start().await;
    rig.config.kinds = vec!["html".into(), "image".into()];
    rig.config.max_image_bytes = 4 * 1024 * 1024;
    rig.crawl(&[rig.web.url("images.test", "/")]).await;
    rig.index().await;

    let generation = current_generation(rig.data())
        .expect("CURRENT reads")
        .expect("a generation");
    let index = Index::open_in_dir(images_dir(&generation_dir(rig.data(), &generation)))
        .expect("the image index opens");
    index_format::tokenize::register(&index);
    let fields = ImageFields::new(&index.schema()).expect("the image schema");
    let searcher = index.reader().expect("reader").searcher();
    let text = |doc: &TantivyDocument, field| {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let mut docs = BTreeMap::new();
    for address in searcher
        .search(&AllQuery, &DocSetCollector)
        .expect("search")
    {
        let doc: TantivyDocument = searcher.doc(address).expect("stored");
        docs.insert(text(&doc, fields.url), doc);
    }
    // Every image stored as one (the hostile ones too: they are measured, not decoded); not
    // the HTML served as a PNG, not the forbidden one.
    let mut expected: Vec<String> = IMAGES_READ
        .iter()
        .map(|image| image.path)
        .chain(IMAGES_HOSTILE[1..].iter().copied())
        .map(|path| rig.web.url("images.test", path))
        .collect();
    expected.sort();
    assert_eq!(docs.keys().cloned().collect::<Vec<_>>(), expected);

    let find = |field, words: &str| -> Vec<String> {
        let query = QueryParser::for_index(&index, vec![field])
            .parse_query(words)
            .expect("query");
        let mut urls: Vec<String> = searcher
            .search(&query, &TopDocs::with_limit(20).order_by_score())
            .expect("search")
            .into_iter()
            .map(|(_, address)| text(&searcher.doc(address).expect("stored"), fields.url))
            .collect();
        urls.sort();
        urls
    };
    let sunset = rig.web.url("images.test", "/img/sunset.jpg");
    let copy = rig.web.url("images.test", "/img/sunset-copy.jpg");
    // "sunset over the harbour", and "the same sunset again" (its bytes' other URL).
    assert_eq!(find(fields.alt, "sunset"), vec![copy, sunset.clone()]);
    let boat = rig.web.url("images.test", "/img/boat.webp");
    assert_eq!(find(fields.alt, "fishing boat"), vec![boat.clone()]);
    assert_eq!(find(fields.context, IMAGES_BOAT_WORD), vec![boat.clone()]);
    assert_eq!(
        text(&docs[&boat], fields.page_url),
        rig.web.url("images.test", "/boats.html")
    );
    let gallery = &docs[&sunset];
    assert_eq!(
        text(gallery, fields.page_url),
        rig.web.url("images.test", "/")
    );
    assert_eq!(text(gallery, fields.page_title), "Harbour gallery");
    assert_eq!(text(gallery, fields.format), "jpeg");
    let number = |field| gallery.get_first(field).and_then(|v| v.as_u64());
    assert_eq!(
        (number(fields.width), number(fields.height)),
        (Some(1200), Some(800))
    );
    assert_eq!(number(fields.thumbnail), Some(1));
}
