//! Which images a search reaches: a generation without images, the next generation's, every
//! local shard's, `site:`, and queries the grammar reads oddly (searched, never an error).

use shared::config::RankingConfig;
use shared::partition::PartitionId;

use super::tests::{asking, search, urls};
use super::testutil::{Img, data_with_images, put_thumbnail, write_images};
use crate::search::Searcher;
use crate::search_error::SearchError;
use crate::testutil::{data_with, shore, write_generation};

#[test]
fn a_generation_without_images_answers_empty_and_no_index_is_no_index() {
    let data = data_with(&shore());
    let results = search(data.path(), asking("heron"));
    assert_eq!((results.total, results.hits.len()), (0, 0));
    assert!(!results.nothing_to_search);

    let empty = tempfile::tempdir().expect("tempdir");
    let searcher = Searcher::open(empty.path(), RankingConfig::default()).expect("searcher");
    let answer = searcher.search_images(&asking("heron"));
    assert!(matches!(answer, Err(SearchError::NoIndex)), "{answer:?}");
    let blank = searcher
        .search_images(&asking("  "))
        .expect("nothing to search");
    assert!(blank.nothing_to_search);
}

#[test]
fn a_new_generation_brings_its_own_images() {
    let data = data_with(&shore());
    let searcher = Searcher::open(data.path(), RankingConfig::default()).expect("searcher");
    assert_eq!(
        searcher
            .search_images(&asking("heron"))
            .expect("search")
            .total,
        0
    );
    write_generation(data.path(), 2, &shore());
    write_images(
        data.path(),
        2,
        &[Img {
            alt: "heron",
            ..Img::new("http://a.test/h.png", 1)
        }],
    );
    assert!(searcher.refresh().expect("refresh"));
    let results = searcher.search_images(&asking("heron")).expect("search");
    assert_eq!(urls(&results), ["http://a.test/h.png"]);
}

#[test]
fn images_written_in_place_into_a_loaded_generation_are_picked_up() {
    let data = data_with(&shore());
    let searcher = Searcher::open(data.path(), RankingConfig::default()).expect("searcher");
    assert!(!searcher.refresh().expect("refresh"), "nothing new");
    // An incremental build gives the current generation its first image index.
    write_images(
        data.path(),
        1,
        &[Img {
            alt: "heron",
            ..Img::new("http://a.test/h.png", 1)
        }],
    );
    assert!(searcher.refresh().expect("refresh"), "the images appeared");
    let results = searcher.search_images(&asking("heron")).expect("search");
    assert_eq!(urls(&results), ["http://a.test/h.png"]);
    assert!(!searcher.refresh().expect("refresh"), "loaded once");
}

#[test]
fn the_images_of_every_local_shard_are_searched_together() {
    let data = tempfile::tempdir().expect("tempdir");
    for (partition, url, width) in [
        (0, "http://p0.test/a.png", 400),
        (1, "http://p1.test/b.png", 40),
    ] {
        let dir = PartitionId::new(partition).data_dir(data.path());
        put_thumbnail(&dir, partition.into(), b"thumb");
        write_generation(&dir, 1, &shore());
        write_images(
            &dir,
            1,
            &[Img {
                alt: "heron",
                width,
                ..Img::new(url, partition.into())
            }],
        );
    }
    let results = search(data.path(), asking("heron"));
    assert_eq!(
        urls(&results),
        ["http://p0.test/a.png", "http://p1.test/b.png"]
    );
    assert_eq!(results.total, 2);
}

#[test]
fn malformed_and_field_queries_are_searched_leniently_over_images() {
    let data = data_with_images(
        &shore(),
        &[Img {
            alt: "heron",
            ..Img::new("http://birds.test/heron.png", 1)
        }],
    );
    let searcher = Searcher::open(data.path(), RankingConfig::default()).expect("searcher");
    for query in [
        "title:*",
        "url:*",
        "inurl:heron",
        "site:birds.test heron",
        "\"heron",
        "((((heron",
        "heron^1e30",
        "width:[0 TO 5]",
        "alt:heron",
        "format:png",
        "-heron",
        "heron OR",
        "*",
        "std::vec::Vec heron",
        "f-string os.path.join",
    ] {
        let answer = searcher.search_images(&asking(query));
        assert!(answer.is_ok(), "{query:?}: {answer:?}");
    }
    let found = searcher.search_images(&asking("\"heron")).expect("search");
    assert_eq!(urls(&found), ["http://birds.test/heron.png"]);
}

#[test]
fn site_keeps_the_images_shown_on_that_hosts_pages() {
    let on = |url, page_url, hash| Img {
        alt: "heron",
        page_url,
        ..Img::new(url, hash)
    };
    let data = data_with_images(
        &shore(),
        &[
            on("http://cdn.test/1.png", "http://birds.test/gallery", 1),
            on(
                "http://cdn.test/2.png",
                "https://www.birds.test:8443/a/b",
                2,
            ),
            on("http://cdn.test/3.png", "http://notbirds.test/", 3),
            on("http://cdn.test/4.png", "http://tides.test/?birds.test", 4),
        ],
    );
    let mut found = search(data.path(), asking("site:birds.test heron"));
    found.hits.sort_by(|a, b| a.url.cmp(&b.url));
    assert_eq!(
        urls(&found),
        ["http://cdn.test/1.png", "http://cdn.test/2.png"]
    );
    let whole_site = search(data.path(), asking("site:notbirds.test"));
    assert!(!whole_site.nothing_to_search);
    assert_eq!(urls(&whole_site), ["http://cdn.test/3.png"]);
}
