//! Index and search over shards: the test web's hosts crawled once into one store, and once
//! per partition (each partition crawling the hosts `Partitions::of_host` gives it), both
//! indexed by the indexer; searched in-process and through `searchd leaf` over HTTPS with
//! the leaf token (a certificate the test's own CA signed), the shards give one index's
//! results and scores; a leaf that is down, or asked without the token, in clear or without
//! trusting its CA, leaves the answer partial with the other shards' hits.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use gateway::{RemoteLeaf, SearchResults, Searcher};
use shared::partition::Partitions;
use testweb::TestWeb;

use crate::support::{crawl, crawler_config, index};

/// Hosts with pages to search (and links between their pages).
const HOSTS: [&str; 4] = ["sample.test", "ranked.test", "copies.test", "charsets.test"];
const PARTITIONS: u32 = 2;
const QUERIES: [&str; 6] = [
    "page",
    "the",
    "sample",
    "heron",
    "copy text",
    "\"the page\"",
];

fn same(query: &str, expected: &SearchResults, found: &SearchResults) {
    assert_eq!(found.total, expected.total, "{query}");
    assert_eq!(found.hits.len(), expected.hits.len(), "{query}");
    for (e, f) in expected.hits.iter().zip(&found.hits) {
        assert!((e.score - f.score).abs() <= 1e-4, "{query}: {e:?} {f:?}");
        let tied = (e.score - f.score).abs() <= 1e-6;
        assert!(
            e.url == f.url || tied,
            "{query}: {} against {}",
            e.url,
            f.url
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_crawled_apart_answer_as_one_index_and_a_down_leaf_is_partial() {
    let web = TestWeb::start().await;
    let seeds = |hosts: &[&str]| -> Vec<String> { hosts.iter().map(|h| web.url(h, "/")).collect() };
    let single = tempfile::tempdir().expect("tempdir");
    crawl(single.path(), &seeds(&HOSTS), crawler_config(&web)).await;
    index(single.path()).await;

    let sharded = tempfile::tempdir().expect("tempdir");
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let mut owned: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for host in HOSTS {
        owned
            .entry(partitions.of_host(host).get())
            .or_default()
            .push(host);
    }
    assert_eq!(owned.len(), 2, "both partitions hold hosts: {owned:?}");
    for (p, hosts) in &owned {
        let dir = shared::partition::PartitionId::new(*p).data_dir(sharded.path());
        crawl(&dir, &seeds(hosts), crawler_config(&web)).await;
    }
    index(sharded.path()).await;

    let open = |data: &Path| Searcher::open(data, Default::default()).expect("searcher");
    let (one, shards) = (open(single.path()), open(sharded.path()));
    let one = tokio::task::spawn_blocking(move || {
        for query in QUERIES {
            let expected = one.search(query, 1, 10).expect("one index");
            let found = shards.search(query, 1, 10).expect("shards");
            same(query, &expected, &found);
        }
        one
    })
    .await
    .expect("compared");

    // A root over the first partition and a leaf (over HTTP) holding the second.
    let leaf_data = tempfile::tempdir().expect("tempdir");
    let second = shared::partition::PartitionId::new(1);
    let from = second.data_dir(sharded.path());
    let to = second.data_dir(leaf_data.path());
    std::fs::create_dir_all(to.parent().expect("parent")).expect("partitions dir");
    std::fs::rename(&from, &to).expect("partition moved to the leaf");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("addr");
    let leaf_url = format!("https://{address}");
    // The leaf answers only a root that shows the token of its `leaf_token_file`, over TLS
    // with a certificate the root's `leaf_ca_file` signed.
    let secrets = tempfile::tempdir().expect("tempdir");
    let token_file = secrets.path().join("leaf-token");
    std::fs::write(&token_file, "shared-by-the-root-and-its-leaf\n").expect("token written");
    let certs = testweb::TestCerts::write(secrets.path());
    let mut config = shared::Config::load(None).expect("the default config");
    config.searchd.leaf_token_file = Some(token_file.clone());
    config.searchd.tls = Some(shared::config::TlsFiles {
        cert: certs.cert.clone(),
        key: certs.key.clone(),
    });
    let token = gateway::LeafToken::read(&token_file).expect("the token");
    let ca = gateway::LeafCa::read(&certs.ca).expect("the CA");
    tokio::spawn(gateway::serve_leaf(
        listener,
        leaf_data.path().to_path_buf(),
        config,
        std::future::pending(),
    ));
    let down = {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", closed.local_addr().expect("addr"))
    };
    let handle = tokio::runtime::Handle::current();
    let leaf = |url: &str| {
        RemoteLeaf::new(url, Duration::from_secs(2), handle.clone(), Some(&ca))
            .expect("leaf")
            .with_token(Some(token.clone()))
    };
    // Without the token, in clear, or not trusting the leaf's CA: missing from the answer.
    let stranger = open(sharded.path()).with_leaves(vec![
        RemoteLeaf::new(&leaf_url, Duration::from_secs(2), handle.clone(), Some(&ca))
            .expect("leaf"),
    ]);
    let in_clear = format!("http://{address}");
    let clear = open(sharded.path()).with_leaves(vec![leaf(&in_clear)]);
    let untrusting = open(sharded.path()).with_leaves(vec![
        RemoteLeaf::new(&leaf_url, Duration::from_secs(2), handle.clone(), None)
            .expect("leaf")
            .with_token(Some(token.clone())),
    ]);
    let root = open(sharded.path()).with_leaves(vec![leaf(&leaf_url)]);
    let root_with_down = open(sharded.path()).with_leaves(vec![leaf(&leaf_url), leaf(&down)]);
    let alone = open(sharded.path());
    tokio::task::spawn_blocking(move || {
        for query in QUERIES {
            let expected = one.search(query, 1, 10).expect("one index");
            let found = root.search(query, 1, 10).expect("root and leaf");
            assert!(found.missing_shards.is_empty(), "{query}");
            same(query, &expected, &found);
            let partial = root_with_down.search(query, 1, 10).expect("never an error");
            assert_eq!(partial.missing_shards, vec![down.clone()], "{query}");
            assert_eq!(gateway::results_json(&partial)["partial"], true);
            same(query, &expected, &partial);
        }
        let refused = stranger
            .search("page", 1, 10)
            .expect("partial, not an error");
        assert_eq!(
            refused.missing_shards,
            vec![leaf_url.clone()],
            "no token, no leaf"
        );
        let refused = clear.search("page", 1, 10).expect("partial, not an error");
        assert_eq!(refused.missing_shards, vec![in_clear], "no clear text");
        let refused = untrusting
            .search("page", 1, 10)
            .expect("partial, not an error");
        assert_eq!(
            refused.missing_shards,
            vec![leaf_url.clone()],
            "a certificate no trusted CA signed"
        );
        let page = alone.search("page", 1, 10).expect("the root's shard alone");
        let everything = one.search("page", 1, 10).expect("one index");
        assert!(page.total < everything.total, "the leaf holds pages too");
    })
    .await
    .expect("compared over HTTP");
}
