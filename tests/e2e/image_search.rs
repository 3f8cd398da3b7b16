//! Image search end to end: the images.test gallery crawled with images on, built by the
//! indexer, and searched through searchd's `/api/images`, `/images` and `/thumb/HASH`: the
//! sharp photo above the blurry one and the icon saying the same word, the same bytes at two
//! URLs one result, the thumbnail the crawler made served as a JPEG.

use serde_json::Value;

use crate::support::Rig;

#[tokio::test]
async fn the_crawled_gallery_is_searched_ranked_folded_and_thumbnailed() {
    let mut rig = Rig::start().await;
    rig.config.kinds = vec!["html".into(), "image".into()];
    rig.config.max_image_bytes = 4 * 1024 * 1024;
    rig.crawl(&[rig.web.url("images.test", "/")]).await;
    rig.index().await;
    let searchd = rig.serve().await;
    let json = |path: &'static str| {
        let url = searchd.url(path);
        async move {
            let response = reqwest::get(url).await.expect("searchd answers");
            assert_eq!(response.status(), 200, "{path}");
            let body = response.text().await.expect("body");
            serde_json::from_str::<Value>(&body).expect("JSON")
        }
    };
    let image = |path| rig.web.url("images.test", path);

    let harbour = json("/api/images?q=harbour").await;
    let urls: Vec<&str> = harbour["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|hit| hit["url"].as_str())
        .collect();
    let place = |path| urls.iter().position(|u| *u == image(path));
    let sunset = place("/img/sunset.jpg").or(place("/img/sunset-copy.jpg"));
    assert_eq!(sunset, Some(0), "the sharp photo first: {urls:?}");
    let (blurry, icon) = (place("/img/blurry.jpg"), place("/img/icon.png"));
    assert!(blurry.is_some() && icon.is_some(), "{urls:?}");
    assert!(blurry < icon, "quality 8 above a 16 px icon: {urls:?}");
    assert!(
        place("/img/sunset.jpg").is_none() || place("/img/sunset-copy.jpg").is_none(),
        "the same bytes are one result: {urls:?}"
    );

    let first = &harbour["hits"][0];
    assert_eq!(first["page_url"], image("/"));
    assert_eq!(first["title"], "Harbour gallery");
    assert_eq!(
        (first["width"].as_u64(), first["height"].as_u64()),
        (Some(1200), Some(800))
    );
    let thumbnail = first["thumbnail"]
        .as_str()
        .expect("a thumbnail")
        .to_string();
    let response = reqwest::get(searchd.url(&thumbnail)).await.expect("thumb");
    assert_eq!(response.status(), 200, "{thumbnail}");
    assert_eq!(response.headers()["content-type"], "image/jpeg");
    let bytes = response.bytes().await.expect("bytes");
    assert!(bytes.starts_with(&[0xFF, 0xD8]), "a JPEG");

    let webp = json("/api/images?q=boat&format=webp").await;
    assert_eq!(webp["hits"][0]["url"], image("/img/boat.webp"));
    assert_eq!(webp["hits"][0]["page_url"], image("/boats.html"));
    let big = json("/api/images?q=harbour&min_width=100").await;
    let big_urls = big["hits"].to_string();
    assert!(!big_urls.contains("icon.png"), "{big_urls}");

    let page = reqwest::get(searchd.url("/images?q=harbour"))
        .await
        .expect("page")
        .text()
        .await
        .expect("HTML");
    assert!(
        page.contains(&format!("<img src=\"{thumbnail}\"")),
        "{page}"
    );
}
