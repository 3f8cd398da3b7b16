//! PDFs for the tests, written as raw PDF syntax: a normal three-page document and hostile
//! ones (a flate bomb, deep nesting, a page tree that is its own parent, an xref loop, an
//! encrypted file). Each is a list of objects; [`assemble`] numbers them from 1, writes the
//! cross-reference table with their true offsets and the trailer.

use std::io::Write;

use flate2::Compression;
use flate2::write::ZlibEncoder;

/// The words on each page of [`three_pages`], one a page.
pub(super) const PAGE_WORDS: [&str; 3] = ["aardvark", "buttercup", "cinnamon"];

/// [`three_pages`]'s title.
pub(super) const TITLE: &str = "Three Little Pages";

/// A file of `objects` (numbered from 1; the first is the catalog) with `trailer_extra` in its
/// trailer, and the offset of its cross-reference table.
pub(super) fn assemble(objects: &[Vec<u8>], trailer_extra: &str) -> (Vec<u8>, usize) {
    let mut pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (index, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        writeln!(pdf, "{} 0 obj", index + 1).expect("to a Vec");
        pdf.extend_from_slice(object);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    write!(pdf, "xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).expect("to a Vec");
    for offset in offsets {
        writeln!(pdf, "{offset:010} 00000 n ").expect("to a Vec");
    }
    write!(
        pdf,
        "trailer\n<< /Size {} /Root 1 0 R {trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    )
    .expect("to a Vec");
    (pdf, xref)
}

/// A stream object holding `content`, with `/Length` and any more of its dictionary.
fn stream(dictionary: &str, content: &[u8]) -> Vec<u8> {
    let mut object = format!("<< /Length {} {dictionary} >>\nstream\n", content.len()).into_bytes();
    object.extend_from_slice(content);
    object.extend_from_slice(b"\nendstream");
    object
}

/// A page under the page tree at object 2, drawing `content` (object `content`) in Helvetica
/// (object 6).
fn page(content: usize) -> Vec<u8> {
    format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
         /Resources << /Font << /F1 6 0 R >> >> /Contents {content} 0 R >>"
    )
    .into_bytes()
}

/// The objects of [`three_pages`]: catalog 1, page tree 2, pages 3-5, font 6, contents 7-9,
/// information dictionary 10.
fn three_page_objects() -> Vec<Vec<u8>> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>".to_vec(),
        page(7),
        page(8),
        page(9),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    ];
    for (number, word) in PAGE_WORDS.iter().enumerate() {
        let text = format!(
            "BT /F1 12 Tf 72 720 Td (Page {} says {word}) Tj ET",
            number + 1
        );
        objects.push(stream("", text.as_bytes()));
    }
    objects.push(
        format!(
            "<< /Title ({TITLE}) /Author <FEFF00C50073006100200044006100680069006C006C> \
             /Subject (Fixtures) /CreationDate (D:20240301102030+01'00') >>"
        )
        .into_bytes(),
    );
    objects
}

/// A normal PDF: three pages, each with one of [`PAGE_WORDS`], titled [`TITLE`], by
/// "Åsa Dahill" (a UTF-16 text string), created 2024-03-01T10:20:30+01:00.
pub(super) fn three_pages() -> Vec<u8> {
    assemble(&three_page_objects(), "/Info 10 0 R").0
}

/// [`three_pages`] whose trailer's `/Prev` points at its own cross-reference table.
pub(super) fn xref_loop() -> Vec<u8> {
    let objects = three_page_objects();
    let (plain, xref) = assemble(&objects, "/Info 10 0 R");
    // The offset's digits do not change its own place: the trailer comes after the table.
    let (looped, looped_xref) = assemble(&objects, &format!("/Info 10 0 R /Prev {xref}"));
    assert_eq!(xref, looped_xref, "the table did not move");
    assert_ne!(plain, looped);
    looped
}

/// [`three_pages`] with an `/Encrypt` dictionary (RC4, 128-bit) whose password checks fail
/// for the empty user password.
pub(super) fn encrypted() -> Vec<u8> {
    let mut objects = three_page_objects();
    let hash = "7A".repeat(32);
    objects.push(
        format!("<< /Filter /Standard /V 2 /R 3 /Length 128 /P -3904 /O <{hash}> /U <{hash}> >>")
            .into_bytes(),
    );
    let id = "0123456789ABCDEF".repeat(2);
    assemble(
        &objects,
        &format!("/Info 10 0 R /Encrypt 11 0 R /ID [<{id}> <{id}>]"),
    )
    .0
}

/// One page whose content stream is `inflated` zero bytes, deflated twice (`/Filter
/// [/FlateDecode /FlateDecode]`): a few KiB on the wire.
pub(super) fn flate_bomb(inflated: usize) -> Vec<u8> {
    let zeros = vec![0u8; 1 << 20];
    let mut inner = ZlibEncoder::new(Vec::new(), Compression::best());
    for _ in 0..inflated / zeros.len() {
        inner.write_all(&zeros).expect("to a Vec");
    }
    let inner = inner.finish().expect("to a Vec");
    let mut outer = ZlibEncoder::new(Vec::new(), Compression::best());
    outer.write_all(&inner).expect("to a Vec");
    let outer = outer.finish().expect("to a Vec");
    let objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        page(4),
        stream("/Filter [/FlateDecode /FlateDecode]", &outer),
    ];
    assemble(&objects, "").0
}

/// A catalog holding an array nested `depth` deep and a dictionary nested `depth` deep.
pub(super) fn deep_nesting(depth: usize) -> Vec<u8> {
    let mut catalog = b"<< /Type /Catalog /Pages 2 0 R /Deep ".to_vec();
    catalog.extend(std::iter::repeat_n(b'[', depth));
    catalog.extend(std::iter::repeat_n(b']', depth));
    catalog.extend_from_slice(b" /Deeper ");
    catalog.extend(std::iter::repeat_n(&b"<< /A "[..], depth).flatten());
    catalog.extend(std::iter::repeat_n(&b">> "[..], depth).flatten());
    catalog.extend_from_slice(b">>");
    let objects = vec![
        catalog,
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        page(4),
        stream("", b"BT /F1 12 Tf 72 720 Td (deep) Tj ET"),
    ];
    assemble(&objects, "").0
}

/// A page tree that is its own parent, over a page that inherits its `/MediaBox` (so a
/// reader must walk up the loop to look for it).
pub(super) fn self_parent_tree() -> Vec<u8> {
    let objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Parent 2 0 R /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>".to_vec(),
        stream("", b"BT 72 720 Td (loop) Tj ET"),
    ];
    assemble(&objects, "").0
}

/// A page tree that is its own first kid, before its one page.
pub(super) fn self_kid_tree() -> Vec<u8> {
    let objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>".to_vec(),
        stream("", b"BT 72 720 Td (loop) Tj ET"),
    ];
    assemble(&objects, "").0
}
