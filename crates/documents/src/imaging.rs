//! Images: decoded within bounds, EXIF orientation applied, scaled down to
//! the long-edge limit, and re-encoded compactly.
//!
//! Scaling is Lanczos3 (SIMD, `fast_image_resize`). The encoding is the
//! smallest of: JPEG (quality 85, 4:2:0) unless the image has
//! transparency; PNG; and the original file's bytes, when it is a PNG or
//! JPEG that needed no change (no scaling, no rotation). An image whose
//! pixels are all grey is encoded as greyscale. The JPEG and PNG encodings
//! run side by side.

use std::io::Cursor;
use std::path::Path;

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::imageops::FilterType;
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageEncoder, ImageFormat, ImageReader};

use crate::{DocImage, DocumentError, Limits};

pub const JPEG_QUALITY: u8 = 85;

/// An image file decoded, upright (its EXIF orientation applied), at its
/// full size.
pub struct Decoded {
    pub image: DynamicImage,
    format: ImageFormat,
    orientation: Orientation,
}

/// Decodes an image file within the limits.
pub fn decode(path: &Path, bytes: &[u8], limits: &Limits) -> Result<Decoded, DocumentError> {
    let corrupt = |e: &dyn std::fmt::Display| {
        DocumentError::corrupt(path, format_args!("not a valid image ({e})"))
    };
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| corrupt(&e))?;
    let Some(format) = reader.format() else {
        return Err(DocumentError::corrupt(
            path,
            "not a PNG, JPEG, GIF or WebP image",
        ));
    };
    if !matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP
    ) {
        return Err(DocumentError::corrupt(
            path,
            format_args!(
                "a {format:?} image, which Sift does not read (it reads PNG, JPEG, GIF and WebP)"
            ),
        ));
    }
    let mut reader = reader;
    let mut decode_limits = image::Limits::default();
    let edge = u32::try_from(limits.max_image_pixels.min(u64::from(u32::MAX))).unwrap_or(u32::MAX);
    decode_limits.max_image_width = Some(edge);
    decode_limits.max_image_height = Some(edge);
    // Decoded RGBA bytes for the largest image allowed, plus room for the decoder.
    decode_limits.max_alloc = Some(
        limits
            .max_image_pixels
            .saturating_mul(4)
            .saturating_add(64 << 20),
    );
    reader.limits(decode_limits);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| bound_or_corrupt(path, &e))?;
    let (width, height) = decoder.dimensions();
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_image_pixels {
        return Err(DocumentError::bound(
            path,
            format_args!(
                "the image is {width}x{height} pixels, over the limit of {} pixels",
                limits.max_image_pixels
            ),
        ));
    }
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| bound_or_corrupt(path, &e))?;
    image.apply_orientation(orientation);
    Ok(Decoded {
        image,
        format,
        orientation,
    })
}

/// The image as a model receives it (see the module's documentation);
/// `bytes` are the file's, sent as they are when that is the smallest.
pub fn for_model(decoded: Decoded, name: &str, bytes: &[u8], limits: &Limits) -> DocImage {
    let Decoded {
        image,
        format,
        orientation,
    } = decoded;
    let (image, scaled) = scale_down(simplify(image), limits.max_image_edge);
    let original = match format {
        ImageFormat::Png if !scaled && orientation == Orientation::NoTransforms => {
            Some((bytes, "image/png"))
        }
        ImageFormat::Jpeg if !scaled && orientation == Orientation::NoTransforms => {
            Some((bytes, "image/jpeg"))
        }
        _ => None,
    };
    encode_compact(image, name.to_string(), original)
}

fn bound_or_corrupt(path: &Path, error: &image::ImageError) -> DocumentError {
    match error {
        image::ImageError::Limits(e) => {
            DocumentError::bound(path, format_args!("the image is too large to decode ({e})"))
        }
        other => DocumentError::corrupt(path, format_args!("not a valid image ({other})")),
    }
}

/// The size that fits `width`×`height` within a long edge of `max`,
/// keeping the aspect ratio (rounded to the nearest pixel, at least 1).
pub fn fit(width: u32, height: u32, max: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= max {
        return (width, height);
    }
    let scale = f64::from(max) / f64::from(long);
    let w = if width == long {
        max
    } else {
        ((f64::from(width) * scale).round() as u32).clamp(1, max)
    };
    let h = if height == long {
        max
    } else {
        ((f64::from(height) * scale).round() as u32).clamp(1, max)
    };
    (w, h)
}

/// The image scaled down to a long edge of `max`, and whether it was scaled.
pub fn scale_down(image: DynamicImage, max: u32) -> (DynamicImage, bool) {
    use fast_image_resize::{FilterType as Filter, ResizeAlg, ResizeOptions, Resizer};
    let (w, h) = fit(image.width(), image.height(), max);
    if (w, h) == (image.width(), image.height()) {
        return (image, false);
    }
    let mut scaled = DynamicImage::new(w, h, image.color());
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(Filter::Lanczos3));
    match Resizer::new().resize(&image, &mut scaled, &options) {
        Ok(()) => (scaled, true),
        // Pixel types fast_image_resize does not handle.
        Err(_) => (image.resize_exact(w, h, FilterType::Lanczos3), true),
    }
}

/// The smallest encoding of `image` (see the module's documentation).
pub fn encode_compact(
    image: DynamicImage,
    name: String,
    original: Option<(&[u8], &str)>,
) -> DocImage {
    let (width, height) = (image.width(), image.height());
    let image = simplify(image);
    // The two encodings run side by side (two cores).
    let (jpeg, png) = std::thread::scope(|scope| {
        let jpeg = (!image.color().has_alpha()).then(|| scope.spawn(|| encode_jpeg(&image)));
        let png = encode_png(&image);
        (jpeg.and_then(|handle| handle.join().ok().flatten()), png)
    });
    let mut best: Option<(Vec<u8>, &str)> = None;
    for (data, mime) in [(jpeg, "image/jpeg"), (png, "image/png")] {
        if let Some(data) = data
            && best.as_ref().is_none_or(|(b, _)| data.len() < b.len())
        {
            best = Some((data, mime));
        }
    }
    let (mut data, mut mime) = best.unwrap_or_default();
    if let Some((bytes, original_mime)) = original
        && (data.is_empty() || bytes.len() <= data.len())
    {
        data = bytes.to_vec();
        mime = original_mime;
    }
    DocImage {
        name,
        mime: mime.to_string(),
        width,
        height,
        data,
    }
}

/// Drops an alpha channel that is fully opaque, and colour from an image
/// whose pixels are all grey; 16-bit images become 8-bit.
pub fn simplify(image: DynamicImage) -> DynamicImage {
    let has_alpha = image.color().has_alpha();
    let rgba = match image {
        DynamicImage::ImageLuma8(_) => return image,
        DynamicImage::ImageRgb8(ref rgb) => {
            if rgb.pixels().all(|p| p[0] == p[1] && p[1] == p[2]) {
                return DynamicImage::ImageLuma8(image.to_luma8());
            }
            return image;
        }
        DynamicImage::ImageRgba8(rgba) => rgba,
        other => other.to_rgba8(),
    };
    let opaque = !has_alpha || rgba.pixels().all(|p| p[3] == 255);
    let grey = rgba.pixels().all(|p| p[0] == p[1] && p[1] == p[2]);
    let image = DynamicImage::ImageRgba8(rgba);
    match (opaque, grey) {
        (true, true) => DynamicImage::ImageLuma8(image.to_luma8()),
        (true, false) => DynamicImage::ImageRgb8(image.to_rgb8()),
        (false, true) => DynamicImage::ImageLumaA8(image.to_luma_alpha8()),
        (false, false) => image,
    }
}

pub fn encode_jpeg(image: &DynamicImage) -> Option<Vec<u8>> {
    let color = match image {
        DynamicImage::ImageLuma8(_) => jpeg_encoder::ColorType::Luma,
        DynamicImage::ImageRgb8(_) => jpeg_encoder::ColorType::Rgb,
        _ => return None,
    };
    let mut out = Vec::new();
    match (u16::try_from(image.width()), u16::try_from(image.height())) {
        (Ok(width), Ok(height)) => {
            jpeg_encoder::Encoder::new(&mut out, JPEG_QUALITY)
                .encode(image.as_bytes(), width, height, color)
                .ok()?;
        }
        // Beyond what the SIMD encoder takes (only with raised limits).
        _ => {
            let encoder = JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY);
            encoder
                .write_image(
                    image.as_bytes(),
                    image.width(),
                    image.height(),
                    image.color().into(),
                )
                .ok()?;
        }
    }
    Some(out)
}

pub fn encode_png(image: &DynamicImage) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let encoder =
        PngEncoder::new_with_quality(&mut out, CompressionType::Fast, PngFilter::Adaptive);
    encoder
        .write_image(
            image.as_bytes(),
            image.width(),
            image.height(),
            image.color().into(),
        )
        .ok()?;
    Some(out)
}
