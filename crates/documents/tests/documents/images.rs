//! Images: orientation, scaling, encoding.

use std::io::Cursor;

use image::{DynamicImage, GenericImageView, Rgb, RgbImage, Rgba};

use crate::fixtures::{
    encode_png, jpeg_with_orientation, png, png_with_orientation, transparent_png,
};
use crate::{TempDir, read_one};

fn decode(data: &[u8]) -> DynamicImage {
    image::load_from_memory(data).expect("an image")
}

/// 4x2: red on the top-left pixel, the rest blue.
fn marked() -> DynamicImage {
    let mut image = RgbImage::from_pixel(4, 2, Rgb([0, 0, 255]));
    image.put_pixel(0, 0, Rgb([255, 0, 0]));
    DynamicImage::ImageRgb8(image)
}

#[test]
fn exif_orientation_is_applied() {
    let dir = TempDir::new();
    // Orientation 6: the camera was turned; the image must be rotated 90° clockwise.
    let documents = read_one(&dir.write("turned.png", png_with_orientation(&marked(), 6))).unwrap();
    let image = documents.images()[0];
    assert_eq!(
        (image.width, image.height, image.mime.as_str()),
        (2, 4, "image/png")
    );
    let pixels = decode(&image.data).to_rgb8();
    assert_eq!(pixels.dimensions(), (2, 4));
    assert_eq!(
        pixels.get_pixel(1, 0),
        &Rgb([255, 0, 0]),
        "the top-left pixel goes to the top-right"
    );
    assert_eq!(pixels.get_pixel(0, 0), &Rgb([0, 0, 255]));

    // Orientation 3: upside down.
    let documents = read_one(&dir.write("upside.png", png_with_orientation(&marked(), 3))).unwrap();
    let pixels = decode(&documents.images()[0].data).to_rgb8();
    assert_eq!(pixels.dimensions(), (4, 2));
    assert_eq!(pixels.get_pixel(3, 1), &Rgb([255, 0, 0]));

    // A JPEG photo taken in portrait: 300x200 stored, 200x300 shown.
    let photo = DynamicImage::ImageRgb8(RgbImage::from_fn(300, 200, |x, y| {
        Rgb([(x % 256) as u8, (y % 256) as u8, 128])
    }));
    let documents = read_one(&dir.write("portrait.jpg", jpeg_with_orientation(&photo, 8))).unwrap();
    let image = documents.images()[0];
    assert_eq!((image.width, image.height), (200, 300));
    assert_eq!(decode(&image.data).dimensions(), (200, 300));
}

#[test]
fn large_images_are_scaled_to_a_long_edge_of_1568() {
    let dir = TempDir::new();
    for (name, (w, h), expected) in [
        ("wide.png", (3000, 1000), (1568, 523)),
        ("tall.png", (1000, 3000), (523, 1568)),
        ("square.png", (1569, 1569), (1568, 1568)),
        ("edge.png", (1568, 100), (1568, 100)),
        ("small.png", (640, 480), (640, 480)),
    ] {
        let bytes = encode_png(&DynamicImage::ImageRgb8(RgbImage::from_fn(w, h, |x, y| {
            Rgb([(x % 251) as u8, (y % 241) as u8, 7])
        })));
        let documents = read_one(&dir.write(name, bytes)).unwrap();
        let image = documents.images()[0];
        assert_eq!((image.width, image.height), expected, "{name}");
        assert_eq!(decode(&image.data).dimensions(), expected, "{name}");
    }
}

#[test]
fn transparency_keeps_png_and_photos_become_jpeg() {
    let dir = TempDir::new();
    let documents = read_one(&dir.write("logo.png", transparent_png(64, 32))).unwrap();
    let image = documents.images()[0];
    assert_eq!(image.mime, "image/png");
    let decoded = decode(&image.data).to_rgba8();
    assert_eq!(
        (decoded.get_pixel(0, 0), decoded.get_pixel(63, 0)),
        (&Rgba([255, 0, 0, 255]), &Rgba([0, 0, 0, 0]))
    );

    // A noisy photo-like picture is smaller as JPEG.
    let mut seed = 1u32;
    let noisy = RgbImage::from_fn(400, 300, |x, y| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        Rgb([((x + y) % 256) as u8, (seed >> 24) as u8, (y % 256) as u8])
    });
    let documents =
        read_one(&dir.write("photo.png", encode_png(&DynamicImage::ImageRgb8(noisy)))).unwrap();
    assert_eq!(documents.images()[0].mime, "image/jpeg");
}

#[test]
fn a_compact_original_that_needs_no_change_is_sent_as_it_is() {
    let dir = TempDir::new();
    // A tiny PNG: no re-encoding is smaller than the file itself.
    let original = png(4, 4, [12, 34, 56]);
    let documents = read_one(&dir.write("icon.png", &original)).unwrap();
    let image = documents.images()[0];
    assert_eq!(
        (image.mime.as_str(), image.width, image.height),
        ("image/png", 4, 4)
    );
    assert_eq!(image.data, original);
}

#[test]
fn a_gif_gives_its_first_frame_and_webp_is_read() {
    let dir = TempDir::new();
    let mut gif = Vec::new();
    {
        let mut encoder = image::codecs::gif::GifEncoder::new(&mut gif);
        for colour in [[255, 0, 0, 255], [0, 255, 0, 255]] {
            let frame = image::RgbaImage::from_pixel(6, 4, Rgba(colour));
            encoder.encode_frame(image::Frame::new(frame)).unwrap();
        }
    }
    let documents = read_one(&dir.write("anim.gif", gif)).unwrap();
    let image = documents.images()[0];
    assert_eq!((image.width, image.height), (6, 4));
    assert_eq!(
        decode(&image.data).to_rgb8().get_pixel(3, 2),
        &Rgb([255, 0, 0])
    );

    let mut webp = Vec::new();
    let picture = DynamicImage::ImageRgb8(RgbImage::from_pixel(20, 10, Rgb([0, 0, 200])));
    picture
        .write_to(&mut Cursor::new(&mut webp), image::ImageFormat::WebP)
        .unwrap();
    let documents = read_one(&dir.write("pic.webp", webp)).unwrap();
    let image = documents.images()[0];
    assert_eq!((image.width, image.height), (20, 10));
    assert_eq!(
        decode(&image.data).to_rgb8().get_pixel(10, 5),
        &Rgb([0, 0, 200])
    );
}
