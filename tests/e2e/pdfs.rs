//! PDFs as a content kind: a crawl reads each PDF's text and title in a child process (this
//! test binary re-entered, as `crawler pdf-text` is in production), whatever the server calls
//! it; hostile files end in a stored status, the crawl going on; the text is searchable, and
//! results say it is a PDF.

use shared::ContentKind;
use shared::record::{MediaRecord, PdfInfo, PdfStatus};
use testweb::{
    PDFS_FAKE_WORD, PDFS_HOSTILE, PDFS_LOGBOOK_WORD, PDFS_TIDES_TITLE, PDFS_TIDES_WORDS,
};

use crate::support::Rig;

fn pdf_info(rig: &Rig, path: &str) -> PdfInfo {
    let url = rig.web.url("pdfs.test", path);
    match rig.store().media(&url).expect("readable") {
        Some(MediaRecord::Pdf(info)) => info,
        other => panic!("{url}: no PDF record ({other:?})"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pdfs_are_read_in_a_child_stored_with_their_status_and_searched() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("pdfs.test", "/")]).await;
    let store = rig.store();

    let tides_url = rig.web.url("pdfs.test", "/docs/tides.pdf");
    let tides = store.page(&tides_url).expect("readable").expect("stored");
    assert_eq!(
        (tides.kind, tides.title.as_str()),
        (ContentKind::Pdf, PDFS_TIDES_TITLE)
    );
    let text = tides.body.decompress().expect("text");
    for word in PDFS_TIDES_WORDS {
        assert!(text.contains(word), "{word} in {text:?}");
    }
    let info = pdf_info(&rig, "/docs/tides.pdf");
    assert_eq!((info.status, info.pages), (PdfStatus::Read, 3));
    assert_eq!(info.author, "The Harbour Master");

    // Served as an octet stream, told by its bytes.
    let logbook = rig.web.url("pdfs.test", "/download?id=7");
    let logbook = store.page(&logbook).expect("readable").expect("stored");
    assert_eq!(logbook.kind, ContentKind::Pdf);
    assert!(
        logbook
            .body
            .decompress()
            .expect("text")
            .contains(PDFS_LOGBOOK_WORD)
    );
    // HTML served as a PDF is a page.
    let fake = rig.web.url("pdfs.test", "/docs/fake.pdf");
    let fake = store.page(&fake).expect("readable").expect("stored");
    assert_eq!(fake.kind, ContentKind::Html);

    // Hostile files: a status each, and the crawl went on past them.
    let [locked, bomb, looped, broken] = PDFS_HOSTILE.map(|path| pdf_info(&rig, path));
    assert_eq!(locked.status, PdfStatus::Encrypted);
    let mut explained = Vec::new();
    crawler::inspect::explain(
        &rig.crawl_stores(),
        &rig.web.url("pdfs.test", PDFS_HOSTILE[0]),
        &mut explained,
    )
    .expect("explained");
    let explained = String::from_utf8(explained).expect("UTF-8");
    assert!(explained.contains("\n  pdf: encrypted\n"), "{explained}");
    assert!(
        matches!(bomb.status, PdfStatus::ParseCrash | PdfStatus::Read),
        "{bomb:?}"
    );
    let bomb_page = store
        .page(&rig.web.url("pdfs.test", PDFS_HOSTILE[1]))
        .expect("readable")
        .expect("stored");
    // No body at all (an empty one does not decompress), or a few bytes: no gigabyte of text.
    let bomb_text = bomb_page.body.decompress().map_or(0, |text| text.len());
    assert!(bomb_text < 1024, "{bomb_text} bytes of text");
    assert_eq!(looped.status, PdfStatus::Malformed, "{looped:?}");
    assert!(
        matches!(broken.status, PdfStatus::Malformed | PdfStatus::ParseCrash) || broken.pages <= 3,
        "{broken:?}"
    );

    // Searchable, and said to be a PDF.
    rig.index().await;
    let searchd = rig.serve().await;
    let answer = reqwest::get(searchd.url(&format!("/api/search?q={}", PDFS_TIDES_WORDS[1])))
        .await
        .expect("answer")
        .text()
        .await
        .expect("body");
    let body: serde_json::Value = serde_json::from_str(&answer).expect("JSON");
    let hits = body["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "{body}");
    assert_eq!(hits[0]["url"], tides_url.as_str());
    assert_eq!(hits[0]["title"], PDFS_TIDES_TITLE);
    assert_eq!(hits[0]["kind"], "pdf", "{body}");
    assert!(
        hits[0]["snippet"]
            .as_str()
            .is_some_and(|s| s.contains(PDFS_TIDES_WORDS[1])),
        "{body}"
    );
    let page = reqwest::get(searchd.url(&format!("/search?q={PDFS_FAKE_WORD}")))
        .await
        .expect("answer")
        .text()
        .await
        .expect("HTML");
    assert!(page.contains("fake.pdf"), "the HTML page found by its word");
}
