//! The quality prior of an image: what its text score is multiplied by, so tiny images
//! (icons, spacers, buttons), badly compressed JPEGs and images with no thumbnail to show
//! rank below good ones saying the same words, as the half-billion-image crawl ranked them;
//! an image of unknown size ranks between a tiny one and a picture.
//! Each flaw is a factor below 1 and the factors multiply: a tiny, blocky JPEG sinks further
//! than either alone. Nothing is ever removed by the prior; filters do that.

/// What the prior reads of an image (from the image index's fast fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ImageFacts {
    /// Width in pixels (0: not known).
    pub(crate) width: u64,
    /// Height in pixels (0: not known).
    pub(crate) height: u64,
    /// A JPEG's quality, 1-100 (0: not a JPEG, or not known).
    pub(crate) jpeg_quality: u64,
    /// Whether a thumbnail is stored.
    pub(crate) thumbnail: bool,
}

/// How an image's size counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SizeClass {
    /// Big enough to be a picture.
    Picture,
    /// Under [`TINY_SIDE`] pixels on its short side, or under [`TINY_PIXELS`] in all: an
    /// icon, a bullet, a spacer.
    Tiny,
    /// Its size could not be read (a vector image without one, bytes that lie).
    Unknown,
}

/// A short side under this many pixels is tiny.
pub(crate) const TINY_SIDE: u64 = 100;
/// Fewer pixels than this is tiny (a 140 x 140 image).
pub(crate) const TINY_PIXELS: u64 = 20_000;
/// A JPEG quality under this is low: blocky, smeared.
pub(crate) const LOW_JPEG_QUALITY: u64 = 30;

/// The factor of a tiny image.
const TINY_FACTOR: f32 = 0.2;
/// The factor of an image of unknown size.
const UNKNOWN_SIZE_FACTOR: f32 = 0.5;
/// The factor of a low-quality JPEG.
const LOW_QUALITY_FACTOR: f32 = 0.5;
/// The factor of an image with no thumbnail (a result shown without a picture).
const NO_THUMBNAIL_FACTOR: f32 = 0.7;

impl ImageFacts {
    /// Its size class.
    pub(crate) fn size_class(&self) -> SizeClass {
        if self.width == 0 || self.height == 0 {
            SizeClass::Unknown
        } else if self.width.min(self.height) < TINY_SIDE
            || self.width.saturating_mul(self.height) < TINY_PIXELS
        {
            SizeClass::Tiny
        } else {
            SizeClass::Picture
        }
    }

    /// Whether it is a JPEG of low quality.
    pub(crate) fn low_quality(&self) -> bool {
        (1..LOW_JPEG_QUALITY).contains(&self.jpeg_quality)
    }

    /// The prior: 1 for a good picture, each flaw's factor multiplied in.
    pub(crate) fn prior(&self) -> f32 {
        let size = match self.size_class() {
            SizeClass::Picture => 1.0,
            SizeClass::Tiny => TINY_FACTOR,
            SizeClass::Unknown => UNKNOWN_SIZE_FACTOR,
        };
        let quality = if self.low_quality() {
            LOW_QUALITY_FACTOR
        } else {
            1.0
        };
        let thumbnail = if self.thumbnail {
            1.0
        } else {
            NO_THUMBNAIL_FACTOR
        };
        size * quality * thumbnail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(width: u64, height: u64, jpeg_quality: u64, thumbnail: bool) -> ImageFacts {
        ImageFacts {
            width,
            height,
            jpeg_quality,
            thumbnail,
        }
    }

    #[test]
    fn a_large_sharp_photo_with_a_thumbnail_keeps_its_score() {
        assert_eq!(facts(1600, 1200, 85, true).prior(), 1.0);
        assert_eq!(
            facts(640, 480, 0, true).prior(),
            1.0,
            "a PNG has no quality"
        );
    }

    #[test]
    fn a_16_pixel_icon_and_a_thin_banner_are_tiny() {
        assert_eq!(facts(16, 16, 0, true).size_class(), SizeClass::Tiny);
        assert_eq!(facts(1000, 40, 0, true).size_class(), SizeClass::Tiny);
        assert_eq!(facts(120, 120, 0, true).size_class(), SizeClass::Tiny);
        assert_eq!(facts(150, 150, 0, true).size_class(), SizeClass::Picture);
        assert!(facts(16, 16, 0, true).prior() < facts(150, 150, 0, true).prior());
    }

    #[test]
    fn an_image_of_unknown_size_ranks_between_a_tiny_one_and_a_picture() {
        let unknown = facts(0, 0, 0, true);
        assert_eq!(unknown.size_class(), SizeClass::Unknown);
        assert!(unknown.prior() < facts(800, 600, 0, true).prior());
        assert!(unknown.prior() > facts(16, 16, 0, true).prior());
    }

    #[test]
    fn a_jpeg_under_quality_30_is_ranked_down_and_one_at_30_is_not() {
        assert!(facts(800, 600, 12, true).low_quality());
        assert!(!facts(800, 600, 30, true).low_quality());
        assert!(facts(800, 600, 12, true).prior() < facts(800, 600, 30, true).prior());
    }

    #[test]
    fn flaws_multiply() {
        let tiny_blocky_unshown = facts(16, 16, 10, false).prior();
        assert!(tiny_blocky_unshown < facts(16, 16, 10, true).prior());
        assert!(tiny_blocky_unshown < facts(16, 16, 90, false).prior());
        assert!(tiny_blocky_unshown > 0.0);
    }
}
