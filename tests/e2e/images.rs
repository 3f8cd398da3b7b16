//! Images as a content kind: a crawl with `kinds = ["html", "image"]` fetches the images
//! pages show under robots.txt like any page, reads each one's format, size and JPEG quality
//! from its bytes (not from what the server says), thumbnails the same bytes once, and
//! survives the hostile ones; with images off, none is fetched.

use shared::record::{ImageInfo, MediaRecord};
use shared::{ContentKind, StoreReader};
use testweb::{IMAGES_DISALLOWED, IMAGES_HOSTILE, IMAGES_JPEG_QUALITIES, IMAGES_READ};

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
