//! The image reader against hostile input: headers that declare huge images, every
//! truncation of every fixture, bodies that are not what the server says, a decompression
//! bomb, and mangled bytes. Each proves the reader answers (a size, a thumbnail or an error
//! naming why) without a panic and without decoding what it must not.

use proptest::prelude::*;

use super::fixtures::{self, HEIGHT, WIDTH};
use super::*;

/// The size every gradient fixture truly has, and the format it truly is, as `probe`
/// should report it.
fn true_facts(format: ImageFormat) -> (ImageFormat, u32, u32) {
    (format, WIDTH, HEIGHT)
}

#[test]
fn every_fixture_is_measured_at_its_true_size_and_thumbnailed() {
    let limits = ImageLimits::default();
    for (name, bytes, format) in fixtures::all() {
        let reading = read_image(&bytes, Some(format), &limits);
        let facts = reading
            .facts
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            (facts.format, facts.width, facts.height),
            true_facts(format),
            "{name}"
        );
        let thumbnail = reading
            .thumbnail
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Smaller than a thumbnail: kept at its size, not enlarged.
        assert_eq!(
            (thumbnail.width, thumbnail.height),
            (WIDTH, HEIGHT),
            "{name}"
        );
        assert!(!reading.mislabelled(), "{name}");
        assert_eq!(reading.byte_size, bytes.len() as u64, "{name}");
    }
}

#[test]
fn every_truncation_of_every_fixture_gives_the_true_size_or_an_error() {
    let limits = ImageLimits::default();
    for (name, bytes, format) in fixtures::all() {
        for cut in 0..bytes.len() {
            let prefix = &bytes[..cut];
            let reading = read_image(prefix, Some(format), &limits);
            if let Ok(facts) = reading.facts {
                let seen = (facts.format, facts.width, facts.height);
                assert_eq!(seen, true_facts(format), "{name} cut at {cut}");
            }
            if let Ok(thumbnail) = &reading.thumbnail {
                assert!(
                    thumbnail.width <= 256 && thumbnail.height <= 256,
                    "{name} at {cut}"
                );
                assert!(
                    reading.facts.is_ok(),
                    "{name} at {cut}: a thumbnail without a size"
                );
            }
        }
    }
}

#[test]
fn a_png_declaring_16384_pixels_a_side_in_a_few_bytes_is_measured_and_refused_before_decoding() {
    // One row of one pixel's data for an image that declares 268 million.
    let png = fixtures::png_declaring(16384, 16384, &[0, 0]);
    assert!(png.len() <= 70, "{} bytes", png.len());
    let reading = read_image(&png, Some(ImageFormat::Png), &ImageLimits::default());
    let facts = reading.facts.expect("a readable header");
    assert_eq!((facts.width, facts.height), (16384, 16384));
    assert_eq!(
        reading.thumbnail,
        Err(ThumbnailError::TooManyPixels {
            width: 16384,
            height: 16384,
            max_pixels: 40_000_000
        })
    );
}

#[test]
fn a_png_declaring_100000_pixels_a_side_is_refused_before_decoding() {
    let png = fixtures::png_declaring(100_000, 100_000, &[0, 0]);
    let reading = read_image(&png, Some(ImageFormat::Png), &ImageLimits::default());
    let facts = reading
        .facts
        .expect("a size under the absurd one is reported");
    assert_eq!(facts.pixels(), 10_000_000_000);
    assert!(matches!(
        reading.thumbnail,
        Err(ThumbnailError::TooManyPixels { width: 100_000, .. })
    ));
}

#[test]
fn a_png_declaring_two_billion_pixels_a_side_or_none_is_an_absurd_size() {
    for (width, height) in [(i32::MAX as u32, 10), (10, 0), (0, 0)] {
        let png = fixtures::png_declaring(width, height, &[0, 0]);
        let reading = read_image(&png, None, &ImageLimits::default());
        let declared = (u64::from(width), u64::from(height));
        assert!(
            matches!(reading.facts, Err(ProbeError::AbsurdSize { width: w, height: h, .. }) if (w, h) == declared),
            "{width} x {height}: {:?}",
            reading.facts
        );
        assert!(matches!(
            reading.thumbnail,
            Err(ThumbnailError::Unmeasured(_))
        ));
    }
}

#[test]
fn a_decompression_bomb_is_refused_by_its_size_and_by_the_allocation_limit_when_let_past() {
    let bomb = fixtures::zero_bomb(20_000);
    assert!(
        bomb.len() < 1_000_000,
        "{} bytes for 400 million pixels",
        bomb.len()
    );
    let reading = read_image(&bomb, None, &ImageLimits::default());
    assert_eq!(reading.facts.map(|f| f.pixels()), Ok(400_000_000));
    assert!(matches!(
        reading.thumbnail,
        Err(ThumbnailError::TooManyPixels { .. })
    ));
    // With the pixel check out of the way, the decoder's own allocation limit still holds:
    // the 400 MB it would need is over 64 MiB, and it says so before allocating.
    let lax = ImageLimits {
        max_pixels: u64::MAX,
        max_alloc: 64 * 1024 * 1024,
        ..ImageLimits::default()
    };
    let reading = read_image(&bomb, None, &lax);
    assert!(
        matches!(reading.thumbnail, Err(ThumbnailError::OverLimit(_))),
        "{:?}",
        reading.thumbnail
    );
}

#[test]
fn an_html_page_served_as_png_is_not_an_image() {
    let page = b"<!DOCTYPE html>\n<html><head><title>Not found</title></head></html>";
    let served_as = ImageFormat::from_media_type("image/png");
    let reading = read_image(page, served_as, &ImageLimits::default());
    assert_eq!(reading.format, None);
    assert_eq!(reading.facts, Err(ProbeError::NotAnImage));
    assert_eq!(
        reading.thumbnail,
        Err(ThumbnailError::Unmeasured(ProbeError::NotAnImage))
    );
    assert!(reading.mislabelled());
}

#[test]
fn a_gif_served_as_jpeg_is_read_as_the_gif_it_is() {
    let gif = fixtures::encoded(&fixtures::gradient(40, 30), ::image::ImageFormat::Gif);
    let reading = read_image(&gif, Some(ImageFormat::Jpeg), &ImageLimits::default());
    assert_eq!(reading.format, Some(ImageFormat::Gif));
    assert_eq!(
        reading
            .facts
            .as_ref()
            .map(|f| (f.width, f.height, f.jpeg_quality)),
        Ok((40, 30, None))
    );
    assert_eq!(
        reading.thumbnail.as_ref().map(|t| (t.width, t.height)),
        Ok((40, 30))
    );
    assert!(reading.mislabelled());
}

#[test]
fn an_svg_is_recorded_but_neither_measured_nor_decoded() {
    let svg = b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\"/>";
    let reading = read_image(svg, Some(ImageFormat::Svg), &ImageLimits::default());
    assert_eq!(reading.format, Some(ImageFormat::Svg));
    assert_eq!(reading.facts, Err(ProbeError::Vector));
    assert!(!reading.mislabelled());
}

#[test]
fn the_same_bytes_have_the_same_hash_and_other_bytes_another() {
    let limits = ImageLimits::default();
    let png = fixtures::encoded(&fixtures::gradient(8, 8), ::image::ImageFormat::Png);
    let again = read_image(&png.clone(), None, &limits);
    assert_eq!(read_image(&png, None, &limits).hash, again.hash);
    let mut other = png;
    other.push(0);
    assert_ne!(read_image(&other, None, &limits).hash, again.hash);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Bytes of a fixture overwritten at random places: a size, a thumbnail or an error,
    /// never a panic, never a thumbnail over the side limit.
    #[test]
    fn mangled_fixtures_never_panic(
        which in 0usize..10,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..16),
    ) {
        let all = fixtures::all();
        let (_, mut bytes, format) = all[which % all.len()].clone();
        for (at, value) in edits {
            let at = at % bytes.len();
            bytes[at] = value;
        }
        let reading = read_image(&bytes, Some(format), &ImageLimits::default());
        if let Ok(thumbnail) = reading.thumbnail {
            prop_assert!(thumbnail.width <= 256 && thumbnail.height <= 256);
        }
    }
}
