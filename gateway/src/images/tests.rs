//! Image search over real image indexes: what ranks above what, folding, filters and
//! paging.

use shared::config::RankingConfig;

use super::query::ImageRequest;
use super::search::ImageResults;
use super::testutil::{Img, data_with_images};
use crate::search::Searcher;
use crate::testutil::shore;

pub(crate) fn search(data: &std::path::Path, request: ImageRequest) -> ImageResults {
    let searcher = Searcher::open(data, RankingConfig::default()).expect("searcher");
    searcher.search_images(&request).expect("image search")
}

pub(crate) fn asking(query: &str) -> ImageRequest {
    ImageRequest {
        query: query.into(),
        page: 1,
        per_page: 10,
        ..ImageRequest::default()
    }
}

pub(crate) fn urls(results: &ImageResults) -> Vec<&str> {
    results.hits.iter().map(|h| h.url.as_str()).collect()
}

#[test]
fn an_alt_text_match_beats_a_context_only_match() {
    let data = data_with_images(
        &shore(),
        &[
            Img {
                context: "a great blue heron wading at dawn by the shore",
                ..Img::new("http://birds.test/context.png", 1)
            },
            Img {
                alt: "heron",
                context: "photographs from the shore at dawn",
                ..Img::new("http://birds.test/alt.png", 2)
            },
        ],
    );
    let results = search(data.path(), asking("heron"));
    assert_eq!(
        urls(&results),
        ["http://birds.test/alt.png", "http://birds.test/context.png"]
    );
}

#[test]
fn a_tiny_icon_with_the_same_words_ranks_below_a_large_photo() {
    let words = "grey heron";
    let data = data_with_images(
        &shore(),
        &[
            // The icon is first in the index and would win a tie.
            Img {
                alt: words,
                width: 16,
                height: 16,
                ..Img::new("http://birds.test/icon.png", 1)
            },
            Img {
                alt: words,
                width: 1600,
                height: 1200,
                ..Img::new("http://birds.test/photo.png", 2)
            },
        ],
    );
    let results = search(data.path(), asking("heron"));
    assert_eq!(
        urls(&results),
        ["http://birds.test/photo.png", "http://birds.test/icon.png"]
    );
    assert!(results.hits[1].score < results.hits[0].score / 2.0);
}

#[test]
fn a_blocky_jpeg_and_one_without_a_thumbnail_rank_below_a_good_one() {
    let jpeg = |url, hash, quality, thumbnail| Img {
        alt: "oystercatcher",
        format: "jpeg",
        jpeg_quality: quality,
        thumbnail,
        ..Img::new(url, hash)
    };
    let data = data_with_images(
        &shore(),
        &[
            jpeg("http://birds.test/blocky.jpg", 1, 12, true),
            jpeg("http://birds.test/unshown.jpg", 2, 85, false),
            jpeg("http://birds.test/good.jpg", 3, 85, true),
        ],
    );
    let results = search(data.path(), asking("oystercatcher"));
    assert_eq!(urls(&results)[0], "http://birds.test/good.jpg");
    assert_eq!(
        results.hits[0].thumbnail.as_deref(),
        Some("/thumb/0000000000000003")
    );
    let unshown = results.hits.iter().find(|h| h.url.ends_with("unshown.jpg"));
    assert_eq!(unshown.map(|h| h.thumbnail.clone()), Some(None));
}

#[test]
fn the_same_picture_at_two_urls_is_one_result_its_best() {
    let data = data_with_images(
        &shore(),
        &[
            Img {
                context: "heron",
                ..Img::new("http://mirror.test/copy.png", 7)
            },
            Img {
                alt: "heron",
                ..Img::new("http://birds.test/original.png", 7)
            },
            Img {
                alt: "heron in flight",
                ..Img::new("http://birds.test/other.png", 8)
            },
        ],
    );
    let results = search(data.path(), asking("heron"));
    let found = urls(&results);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.contains(&"http://birds.test/original.png"),
        "{found:?}"
    );
    assert!(!found.contains(&"http://mirror.test/copy.png"), "{found:?}");
}

#[test]
fn filters_keep_images_of_the_size_and_format_asked_for() {
    let image = |url, width, height, format| Img {
        alt: "tide pool",
        width,
        height,
        format,
        ..Img::new(url, 0)
    };
    let data = data_with_images(
        &shore(),
        &[
            image("http://a.test/wide.png", 1200, 300, "png"),
            image("http://a.test/tall.gif", 300, 1200, "gif"),
            image("http://a.test/big.jpg", 2000, 1500, "jpeg"),
        ],
    );
    let mut wide = asking("tide");
    wide.min_width = Some(1000);
    let results = search(data.path(), wide);
    let mut found = urls(&results);
    found.sort();
    assert_eq!(found, ["http://a.test/big.jpg", "http://a.test/wide.png"]);

    let mut tall = asking("tide");
    tall.min_height = Some(1000);
    tall.min_width = Some(1000);
    assert_eq!(urls(&search(data.path(), tall)), ["http://a.test/big.jpg"]);

    let mut gifs = asking("tide");
    gifs.format = Some("gif".into());
    let results = search(data.path(), gifs);
    assert_eq!(urls(&results), ["http://a.test/tall.gif"]);
    assert_eq!(results.total, 1);
}

#[test]
fn pages_of_results_follow_each_other_without_repeats() {
    let images: Vec<Img> = (1..=5u64)
        .map(|i| Img {
            alt: "heron",
            width: 200 + 100 * i,
            ..Img::new(
                Box::leak(format!("http://a.test/{i}.png").into_boxed_str()),
                i,
            )
        })
        .collect();
    let data = data_with_images(&shore(), &images);
    let page = |number| {
        let mut request = asking("heron");
        (request.page, request.per_page) = (number, 2);
        search(data.path(), request)
    };
    let (first, second, third) = (page(1), page(2), page(3));
    assert_eq!(first.total, 5);
    assert_eq!(
        (first.hits.len(), second.hits.len(), third.hits.len()),
        (2, 2, 1)
    );
    let mut all: Vec<&str> = [&first, &second, &third]
        .iter()
        .flat_map(|r| urls(r))
        .collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 5);
}
