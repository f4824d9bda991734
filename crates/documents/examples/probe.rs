#![allow(clippy::print_stdout, clippy::unwrap_used)]
use std::time::Instant;
fn main() {
    for f in ["i2d_AmazonWebServices.png", "i2d_oyo.png", "docling_qr_bill_example.jpg"] {
        let bytes = std::fs::read(format!("/work/shared/corpus/{f}")).unwrap();
        let t = Instant::now();
        let img = image::load_from_memory(&bytes).unwrap();
        let t1 = t.elapsed();
        let (w, h) = (img.width(), img.height());
        let s = 1568.0 / w.max(h) as f64;
        let t = Instant::now();
        let small = img.resize_exact((w as f64 * s).round() as u32, (h as f64 * s).round() as u32, image::imageops::FilterType::Triangle);
        let t2 = t.elapsed();
        let t = Instant::now();
        let rgb = small.to_rgb8();
        let gray = rgb.pixels().all(|p| p[0] == p[1] && p[1] == p[2]);
        let t3 = t.elapsed();
        let t = Instant::now();
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85).encode_image(&rgb).unwrap();
        let t4 = t.elapsed();
        let t = Instant::now();
        let mut png = Vec::new();
        use image::ImageEncoder;
        image::codecs::png::PngEncoder::new_with_quality(&mut png, image::codecs::png::CompressionType::Fast, image::codecs::png::FilterType::Adaptive).write_image(rgb.as_raw(), rgb.width(), rgb.height(), image::ExtendedColorType::Rgb8).unwrap();
        let t5 = t.elapsed();
        println!("{f} {:?} {w}x{h} decode {t1:?} resize {t2:?} simplify {t3:?} gray={gray} jpeg {t4:?} ({}) png {t5:?} ({})", img.color(), out.len(), png.len());
    }
}
