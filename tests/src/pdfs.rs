//! `pdfs.test`: a library of PDF files, readable and hostile, written here as raw PDF syntax
//! (objects, a cross-reference table with their true offsets, a trailer).
//!
//! | path | answer |
//! |---|---|
//! | `/` | links to every file below |
//! | `/docs/tides.pdf` | 3 pages, titled [`PDFS_TIDES_TITLE`], one of [`PDFS_TIDES_WORDS`] a page |
//! | `/download?id=7` | a 1-page PDF served as `application/octet-stream`, with [`PDFS_LOGBOOK_WORD`] |
//! | `/docs/fake.pdf` | an HTML page served as `application/pdf`, with [`PDFS_FAKE_WORD`] |
//! | `/docs/locked.pdf` | encrypted (a user password that is not empty) |
//! | `/docs/bomb.pdf` | a content stream deflated twice: a few KiB that inflate to 1 GiB |
//! | `/docs/loop.pdf` | a page tree that is its own parent |
//! | `/docs/broken.pdf` | `/docs/tides.pdf` cut in half |

use std::io::Write;
use std::sync::OnceLock;

use flate2::Compression;
use flate2::write::ZlibEncoder;
use warp::reply::Response;

use crate::reply::{bytes, html, not_found, page, text};

/// The title of `/docs/tides.pdf`.
pub const PDFS_TIDES_TITLE: &str = "Tide Tables of the Harbour";
/// One word on each page of `/docs/tides.pdf`, found nowhere else on the test web.
pub const PDFS_TIDES_WORDS: [&str; 3] = ["springtide", "neaptide", "slackwater"];
/// The word of the PDF at `/download?id=7`.
pub const PDFS_LOGBOOK_WORD: &str = "lightkeeper";
/// The word of the HTML page at `/docs/fake.pdf`.
pub const PDFS_FAKE_WORD: &str = "counterfeit";
/// The hostile files: encrypted, a flate bomb, a page tree that is its own parent, a
/// truncated file.
pub const PDFS_HOSTILE: [&str; 4] = [
    "/docs/locked.pdf",
    "/docs/bomb.pdf",
    "/docs/loop.pdf",
    "/docs/broken.pdf",
];

/// Answers one request to `pdfs.test`.
pub(crate) fn respond(path: &str, query: &str) -> Response {
    let files = files();
    if path == "/download" {
        return match query {
            "id=7" => bytes(200, "application/octet-stream", files.logbook.clone()),
            _ => not_found(),
        };
    }
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => html(200, library()),
        "/docs/tides.pdf" => pdf(files.tides.clone()),
        "/docs/fake.pdf" => bytes(
            200,
            "application/pdf",
            page("Not a PDF", &format!("<p>A {PDFS_FAKE_WORD} document.</p>")),
        ),
        "/docs/locked.pdf" => pdf(files.locked.clone()),
        "/docs/bomb.pdf" => pdf(files.bomb.clone()),
        "/docs/loop.pdf" => pdf(files.looped.clone()),
        "/docs/broken.pdf" => pdf(files.tides[..files.tides.len() / 2].to_vec()),
        _ => not_found(),
    }
}

fn pdf(body: Vec<u8>) -> Response {
    bytes(200, "application/pdf", body)
}

fn library() -> String {
    let links: String = ["/docs/tides.pdf", "/download?id=7", "/docs/fake.pdf"]
        .into_iter()
        .chain(PDFS_HOSTILE)
        .map(|p| format!("<li><a href=\"{p}\">{p}</a></li>\n"))
        .collect();
    page("The harbour library", &format!("<ul>\n{links}</ul>"))
}

/// Every file, written once per process.
struct Files {
    tides: Vec<u8>,
    logbook: Vec<u8>,
    locked: Vec<u8>,
    bomb: Vec<u8>,
    looped: Vec<u8>,
}

fn files() -> &'static Files {
    static FILES: OnceLock<Files> = OnceLock::new();
    FILES.get_or_init(|| {
        let tides_pages: Vec<String> = PDFS_TIDES_WORDS
            .iter()
            .enumerate()
            .map(|(i, word)| format!("Page {} of the tables: {word} at noon", i + 1))
            .collect();
        Files {
            tides: document(&tides_pages, PDFS_TIDES_TITLE, ""),
            logbook: document(
                &[format!("The {PDFS_LOGBOOK_WORD} wrote the weather down")],
                "Logbook",
                "",
            ),
            locked: document(
                &["secret".into()],
                "Locked",
                "/Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /P -3904 \
                 /O <7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A> \
                 /U <7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A7A> >> \
                 /ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789ABCDEF0123456789ABCDEF>]",
            ),
            bomb: bomb(1 << 30),
            looped: assemble(
                &[
                    "<< /Type /Catalog /Pages 2 0 R >>".into(),
                    "<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>".into(),
                ],
                "",
            ),
        }
    })
}

/// A document of one page per text, in Helvetica, titled `title`; `trailer` adds to its
/// trailer.
fn document(pages: &[String], title: &str, trailer: &str) -> Vec<u8> {
    // Objects: 1 catalog, 2 page tree, 3 font, 4 info, then a page and its content each.
    let kids: Vec<String> = (0..pages.len())
        .map(|i| format!("{} 0 R", 5 + 2 * i))
        .collect();
    let mut objects: Vec<Vec<u8>> = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".into(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            pages.len()
        )
        .into(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into(),
        format!("<< /Title ({title}) /Author (The Harbour Master) >>").into(),
    ];
    for (i, words) in pages.iter().enumerate() {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
                 /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
                6 + 2 * i
            )
            .into(),
        );
        objects.push(stream(
            "",
            format!("BT /F1 12 Tf 72 720 Td ({words}) Tj ET").as_bytes(),
        ));
    }
    assemble(&objects, &format!("/Info 4 0 R {trailer}"))
}

/// One page whose content is `inflated` zero bytes deflated twice.
fn bomb(inflated: usize) -> Vec<u8> {
    let deflate = |chunks: &mut dyn Iterator<Item = &[u8]>| {
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
        for chunk in chunks {
            let _ = encoder.write_all(chunk);
        }
        encoder.finish().unwrap_or_default()
    };
    let zeros = vec![0u8; 1 << 20];
    let inner = deflate(&mut std::iter::repeat_n(
        zeros.as_slice(),
        inflated / zeros.len(),
    ));
    let outer = deflate(&mut std::iter::once(inner.as_slice()));
    assemble(
        &[
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".into(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>".into(),
            stream("/Filter [/FlateDecode /FlateDecode]", &outer),
        ],
        "",
    )
}

/// A stream object of `content`, its `/Length` and `dictionary` in its dictionary.
fn stream(dictionary: &str, content: &[u8]) -> Vec<u8> {
    let mut object = format!("<< /Length {} {dictionary} >>\nstream\n", content.len()).into_bytes();
    object.extend_from_slice(content);
    object.extend_from_slice(b"\nendstream");
    object
}

/// A file of `objects`, numbered from 1 (the first is the catalog), with `trailer` added to
/// its trailer.
fn assemble(objects: &[Vec<u8>], trailer: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(object);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for offset in offsets {
        table.push_str(&format!("{offset:010} 00000 n \n"));
    }
    table.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R {trailer} >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    out.extend_from_slice(table.as_bytes());
    out
}
