//! `images.test`: a gallery whose images are good, poor, repeated, lying, hostile and
//! forbidden, for image crawling and image search. Every picture is made here by the `image`
//! crate's encoders, so its true size is known without any reader.
//!
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | disallows `/private/` |
//! | `/` | the gallery: an `og:image`, every image below in `<img>`, a link to `/img/diagram.png` and to `/boats.html` |
//! | `/boats.html` | a `<picture>` whose `<source srcset>` names `/img/boat.webp`, and text about boats |
//! | `/img/sunset.jpg` | 1200 x 800 JPEG at quality 85, alt "sunset over the harbour" |
//! | `/img/sunset-copy.jpg` | the same bytes as `/img/sunset.jpg` |
//! | `/img/blurry.jpg` | 800 x 600 JPEG at quality 8 |
//! | `/img/icon.png` | 16 x 16 PNG |
//! | `/img/diagram.png` | 640 x 480 PNG, only linked |
//! | `/img/card.png` | 1200 x 630 PNG, the `og:image` |
//! | `/img/boat.webp` | 480 x 320 WebP (lossless) |
//! | `/img/gif-as-jpeg.jpg` | a 120 x 90 GIF served as `image/jpeg` |
//! | `/img/liar.png` | an HTML page served as `image/png` |
//! | `/img/huge.png` | 65 bytes of PNG declaring 16384 x 16384 |
//! | `/img/giant.png` | a PNG declaring 100000 x 100000 |
//! | `/img/endless.png` | a PNG header, then zeros without end |
//! | `/private/secret.png` | a PNG robots.txt forbids |

use std::io::Cursor;
use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, RgbImage};
use tokio::sync::watch;
use warp::reply::Response;

use crate::reply::{bytes, html, not_found, page, text, with_header};

/// An image of the gallery: its path and what a crawl must find it to be.
#[derive(Clone, Copy, Debug)]
pub struct GalleryImage {
    /// Its path on `images.test`.
    pub path: &'static str,
    /// Its format's short name (`jpeg`, `png`, `gif`, `webp`).
    pub format: &'static str,
    /// Its true width and height.
    pub size: (u32, u32),
    /// The alt text the gallery gives it (empty: none).
    pub alt: &'static str,
}

/// The images of `images.test` that a crawl reads whole, with their true sizes.
pub const IMAGES_READ: [GalleryImage; 8] = [
    GalleryImage {
        path: "/img/sunset.jpg",
        format: "jpeg",
        size: (1200, 800),
        alt: "sunset over the harbour",
    },
    GalleryImage {
        path: "/img/sunset-copy.jpg",
        format: "jpeg",
        size: (1200, 800),
        alt: "the same sunset again",
    },
    GalleryImage {
        path: "/img/blurry.jpg",
        format: "jpeg",
        size: (800, 600),
        alt: "blurry harbour photo",
    },
    GalleryImage {
        path: "/img/icon.png",
        format: "png",
        size: (16, 16),
        alt: "harbour icon",
    },
    GalleryImage {
        path: "/img/diagram.png",
        format: "png",
        size: (640, 480),
        alt: "tide diagram",
    },
    GalleryImage {
        path: "/img/card.png",
        format: "png",
        size: (1200, 630),
        alt: "",
    },
    GalleryImage {
        path: "/img/boat.webp",
        format: "webp",
        size: (480, 320),
        alt: "a fishing boat",
    },
    GalleryImage {
        path: "/img/gif-as-jpeg.jpg",
        format: "gif",
        size: (120, 90),
        alt: "lighthouse drawing",
    },
];

/// The JPEG quality of `/img/sunset.jpg` and of `/img/blurry.jpg`.
pub const IMAGES_JPEG_QUALITIES: (u8, u8) = (85, 8);

/// The images that are fetched and stored, but whose pixels are never decoded: a lie, two
/// absurd sizes and an endless body.
pub const IMAGES_HOSTILE: [&str; 4] = [
    "/img/liar.png",
    "/img/huge.png",
    "/img/giant.png",
    "/img/endless.png",
];

/// The image robots.txt forbids.
pub const IMAGES_DISALLOWED: &str = "/private/secret.png";

/// A word only `/boats.html` has: the page of the `<picture>`.
pub const IMAGES_BOAT_WORD: &str = "trawler";

/// Answers one request to `images.test`; `stop` turns true when the test web shuts down.
pub(crate) async fn respond(path: &str, stop: &watch::Receiver<bool>) -> Response {
    let pictures = pictures();
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow: /private/\n"),
        "/" => html(200, gallery()),
        "/boats.html" => html(200, boats()),
        "/img/sunset.jpg" | "/img/sunset-copy.jpg" => jpeg(pictures.sunset.clone()),
        "/img/blurry.jpg" => jpeg(pictures.blurry.clone()),
        "/img/icon.png" => png(pictures.icon.clone()),
        "/img/diagram.png" => png(pictures.diagram.clone()),
        "/img/card.png" => png(pictures.card.clone()),
        "/private/secret.png" => png(pictures.icon.clone()),
        "/img/boat.webp" => bytes(200, "image/webp", pictures.boat.clone()),
        "/img/gif-as-jpeg.jpg" => jpeg(pictures.lighthouse.clone()),
        "/img/liar.png" => {
            png(page("Not a picture", "<p>An HTML page served as a PNG.</p>").into_bytes())
        }
        "/img/huge.png" => png(png_declaring(16384, 16384)),
        "/img/giant.png" => png(png_declaring(100_000, 100_000)),
        "/img/endless.png" => with_header(
            crate::stalls::endless(
                stop.clone(),
                Bytes::from(vec![0; 64 * 1024]),
                Duration::from_millis(1),
                Some(Bytes::from(png_declaring(4000, 3000))),
            ),
            "content-type",
            "image/png",
        ),
        _ => not_found(),
    }
}

fn jpeg(body: Vec<u8>) -> Response {
    bytes(200, "image/jpeg", body)
}

fn png(body: Vec<u8>) -> Response {
    bytes(200, "image/png", body)
}

fn gallery() -> String {
    let mut inner = String::from("<p>Pictures of the harbour, taken over one summer.</p>\n");
    for image in IMAGES_READ.iter().filter(|image| {
        !matches!(
            image.path,
            "/img/diagram.png" | "/img/card.png" | "/img/boat.webp"
        )
    }) {
        inner.push_str(&format!(
            "<figure><img src=\"{}\" alt=\"{}\"><figcaption>Seen from the pier.</figcaption></figure>\n",
            image.path, image.alt
        ));
    }
    for path in IMAGES_HOSTILE.iter().chain([&IMAGES_DISALLOWED]) {
        inner.push_str(&format!("<img src=\"{path}\" alt=\"broken\">\n"));
    }
    inner.push_str(
        "<p>The <a href=\"/img/diagram.png\">tide diagram</a> shows the water's height; more on \
         <a href=\"/boats.html\">the boats</a>.</p>\n",
    );
    page("Harbour gallery", &inner).replace(
        "<meta charset=\"utf-8\">",
        "<meta charset=\"utf-8\">\n<meta property=\"og:image\" content=\"/img/card.png\">",
    )
}

fn boats() -> String {
    page(
        "Boats of the harbour",
        &format!(
            "<p>Every morning the {IMAGES_BOAT_WORD} leaves before dawn.</p>\n\
             <picture><source srcset=\"/img/boat.webp\" type=\"image/webp\">\
             <img alt=\"a fishing boat\"></picture>\n<p>It comes back by noon.</p>"
        ),
    )
}

/// Every picture, encoded once per process.
struct Pictures {
    sunset: Vec<u8>,
    blurry: Vec<u8>,
    icon: Vec<u8>,
    diagram: Vec<u8>,
    card: Vec<u8>,
    boat: Vec<u8>,
    lighthouse: Vec<u8>,
}

fn pictures() -> &'static Pictures {
    static PICTURES: OnceLock<Pictures> = OnceLock::new();
    PICTURES.get_or_init(|| Pictures {
        sunset: jpeg_at(&gradient(1200, 800), IMAGES_JPEG_QUALITIES.0),
        blurry: jpeg_at(&gradient(800, 600), IMAGES_JPEG_QUALITIES.1),
        icon: encoded(&gradient(16, 16), image::ImageFormat::Png),
        diagram: encoded(&gradient(640, 480), image::ImageFormat::Png),
        card: encoded(&gradient(1200, 630), image::ImageFormat::Png),
        boat: encoded(&gradient(480, 320), image::ImageFormat::WebP),
        lighthouse: encoded(&gradient(120, 90), image::ImageFormat::Gif),
    })
}

/// A `width` x `height` colour gradient.
fn gradient(width: u32, height: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| {
        let wave = 128.0 + 100.0 * (x as f32 / 17.0 + y as f32 / 23.0).sin();
        image::Rgb([
            (x * 255 / width) as u8,
            (y * 255 / height) as u8,
            wave as u8,
        ])
    }))
}

fn encoded(picture: &DynamicImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    match format {
        // GIF and lossless WebP take RGBA or RGB; the encoders say which.
        image::ImageFormat::Gif => {
            DynamicImage::ImageRgba8(picture.to_rgba8()).write_to(&mut out, format)
        }
        _ => picture.write_to(&mut out, format),
    }
    .map(|()| out.into_inner())
    .unwrap_or_default()
}

fn jpeg_at(picture: &DynamicImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = JpegEncoder::new_with_quality(&mut out, quality).encode_image(picture);
    out
}

/// A PNG signature and an IHDR chunk (8-bit RGB) declaring `width` x `height`, then an
/// empty IDAT and IEND: 65 bytes that claim any size.
fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_size_costs_65_bytes_and_the_pictures_decode_at_their_sizes() {
        assert_eq!(png_declaring(16384, 16384).len(), 65);
        let pictures = pictures();
        for (bytes, size) in [
            (&pictures.sunset, (1200, 800)),
            (&pictures.boat, (480, 320)),
            (&pictures.lighthouse, (120, 90)),
        ] {
            let decoded = image::load_from_memory(bytes).expect("decodes");
            assert_eq!((decoded.width(), decoded.height()), size);
        }
    }
}
