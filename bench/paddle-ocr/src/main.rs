//! PaddleOCR's PP-OCRv4 detection and recognition models (as the
//! `rapidocr-onnxruntime` wheel ships them) run through ONNX Runtime (the
//! `onnxruntime` wheel's library, loaded at run time), for the benchmark
//! against Tesseract in `scripts/bench-paddle-ocr.sh`.
//!
//!   sift-bench-paddle-ocr --ort LIB --models DIR --out DIR [--threads N] IMAGE...
//!
//! Writes each image's text (lines in reading order) to `OUT/NAME.txt`
//! and prints `NAME<TAB>milliseconds` per image. The pipeline follows
//! RapidOCR's defaults (`config.yaml` in the wheel): the page scaled to at
//! most 2,000 px and its short side to at least 736 px for detection, a
//! probability map thresholded at 0.3 and dilated, boxes kept above a mean
//! score of 0.5 and grown by the unclip ratio 1.6, each line read at 48 px
//! high and decoded greedily (CTC), lines under a score of 0.5 dropped.
//! Two simplifications: boxes are axis-aligned (connected components, not
//! rotated rectangles), and the 180° classifier is not run; the corpus's
//! pages are upright or turned by a multiple of 90°, which neither engine
//! path here handles without Tesseract's orientation detection.

use std::path::PathBuf;
use std::time::Instant;

use image::imageops::FilterType;
use image::{GenericImageView, RgbImage};
use ort::session::Session;
use ort::value::Tensor;

type Failure = Box<dyn std::error::Error>;

const MAX_SIDE: u32 = 2000;
const DET_MIN_SIDE: f32 = 736.0;
const DET_THRESHOLD: f32 = 0.3;
const BOX_THRESHOLD: f32 = 0.5;
const UNCLIP_RATIO: f32 = 1.6;
const REC_HEIGHT: u32 = 48;
const REC_MIN_WIDTH: u32 = 320;
const TEXT_SCORE: f32 = 0.5;

struct Args {
    ort: PathBuf,
    models: PathBuf,
    out: PathBuf,
    threads: usize,
    images: Vec<PathBuf>,
}

fn args() -> Result<Args, Failure> {
    let mut it = std::env::args().skip(1);
    let (mut ort, mut models, mut out, mut threads, mut images) = (None, None, None, 2, Vec::new());
    while let Some(a) = it.next() {
        match a.as_str() {
            "--ort" => ort = it.next().map(PathBuf::from),
            "--models" => models = it.next().map(PathBuf::from),
            "--out" => out = it.next().map(PathBuf::from),
            "--threads" => threads = it.next().ok_or("--threads needs a number")?.parse()?,
            _ => images.push(PathBuf::from(a)),
        }
    }
    Ok(Args {
        ort: ort.ok_or("--ort LIB is required")?,
        models: models.ok_or("--models DIR is required")?,
        out: out.ok_or("--out DIR is required")?,
        threads,
        images,
    })
}

fn main() -> Result<(), Failure> {
    let args = args()?;
    let env = ort::init_from(&args.ort)?.build()?;
    let session = |name: &str| -> Result<Session, Failure> {
        Ok(Session::builder(&env)?
            .with_intra_threads(args.threads)?
            .commit_from_file(args.models.join(name))?)
    };
    let mut det = session("ch_PP-OCRv4_det_infer.onnx")?;
    let mut rec = session("ch_PP-OCRv4_rec_infer.onnx")?;
    // The recogniser's alphabet is in its metadata; index 0 is CTC's blank
    // and a space follows the listed characters (RapidOCR's CTCLabelDecode).
    let listed = rec
        .metadata()?
        .custom("character")
        .ok_or("the recogniser has no character list")?;
    let mut alphabet: Vec<String> = vec![String::new()];
    alphabet.extend(listed.lines().map(str::to_owned));
    alphabet.push(" ".into());
    std::fs::create_dir_all(&args.out)?;
    for path in &args.images {
        let start = Instant::now();
        let page = image::open(path)?.to_rgb8();
        let page = bounded(page);
        let boxes = detect(&mut det, &page)?;
        let mut lines = Vec::new();
        for b in boxes {
            if let Some(text) = recognise(&mut rec, &page, b, &alphabet)? {
                lines.push((b, text));
            }
        }
        let text = reading_order(lines);
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        std::fs::write(args.out.join(format!("{name}.txt")), text)?;
        println!("{name}\t{}", start.elapsed().as_millis());
    }
    Ok(())
}

/// The page at most `MAX_SIDE` on its long side.
fn bounded(page: RgbImage) -> RgbImage {
    let (w, h) = page.dimensions();
    let long = w.max(h);
    if long <= MAX_SIDE {
        return page;
    }
    let scale = MAX_SIDE as f32 / long as f32;
    image::imageops::resize(
        &page,
        (w as f32 * scale) as u32,
        (h as f32 * scale) as u32,
        FilterType::Triangle,
    )
}

/// An axis-aligned box in page pixels: left, top, right, bottom.
#[derive(Clone, Copy, Debug)]
struct Box4 {
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
}

/// `(x/255 - 0.5) / 0.5` per channel, in BGR order (the models were
/// trained on OpenCV's), as an NCHW tensor `width` wide: columns past the
/// image are 0 after normalisation (RapidOCR's padding of a text line).
fn tensor(img: &RgbImage, width: u32) -> Result<Tensor<f32>, Failure> {
    let h = img.height();
    let (h, width) = (h as usize, width as usize);
    let plane = width * h;
    let mut data = vec![0f32; 3 * plane];
    for (x, y, p) in img.enumerate_pixels() {
        let i = y as usize * width + x as usize;
        for (c, &v) in [p[2], p[1], p[0]].iter().enumerate() {
            data[c * plane + i] = (v as f32 / 255.0 - 0.5) / 0.5;
        }
    }
    Ok(Tensor::from_array(([1usize, 3, h, width], data))?)
}

fn to_multiple_of_32(v: f32) -> u32 {
    (((v / 32.0).round() as u32).max(1)) * 32
}

fn detect(det: &mut Session, page: &RgbImage) -> Result<Vec<Box4>, Failure> {
    let (w, h) = page.dimensions();
    let short = w.min(h) as f32;
    let ratio = if short < DET_MIN_SIDE {
        DET_MIN_SIDE / short
    } else {
        1.0
    };
    let (dw, dh) = (
        to_multiple_of_32(w as f32 * ratio),
        to_multiple_of_32(h as f32 * ratio),
    );
    let scaled = image::imageops::resize(page, dw, dh, FilterType::Triangle);
    let outputs = det.run(ort::inputs![tensor(&scaled, dw)?])?;
    let (shape, prob) = outputs[0].try_extract_tensor::<f32>()?;
    let (mh, mw) = (shape[2] as usize, shape[3] as usize);
    // The bitmap, dilated by a 2×2 kernel as RapidOCR does.
    let mut bitmap = vec![false; mh * mw];
    for y in 0..mh {
        for x in 0..mw {
            let on = |yy: usize, xx: usize| prob[yy * mw + xx] > DET_THRESHOLD;
            bitmap[y * mw + x] = on(y, x)
                || (x > 0 && on(y, x - 1))
                || (y > 0 && on(y - 1, x))
                || (x > 0 && y > 0 && on(y - 1, x - 1));
        }
    }
    let (sx, sy) = (w as f32 / mw as f32, h as f32 / mh as f32);
    let mut seen = vec![false; mh * mw];
    let mut boxes = Vec::new();
    let mut stack = Vec::new();
    for start in 0..mh * mw {
        if !bitmap[start] || seen[start] {
            continue;
        }
        // One connected component (8-connected): its bounding box.
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        seen[start] = true;
        stack.push(start);
        while let Some(i) = stack.pop() {
            let (y, x) = (i / mw, i % mw);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (ny, nx) = (y as i64 + dy, x as i64 + dx);
                    if ny < 0 || nx < 0 || ny >= mh as i64 || nx >= mw as i64 {
                        continue;
                    }
                    let j = ny as usize * mw + nx as usize;
                    if bitmap[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
        if bw.min(bh) < 3.0 {
            continue;
        }
        // The box's score: the mean probability inside it ("fast" mode).
        let mut sum = 0f32;
        for y in y0..=y1 {
            sum += prob[y * mw + x0..=y * mw + x1].iter().sum::<f32>();
        }
        if sum / (bw * bh) < BOX_THRESHOLD {
            continue;
        }
        // Unclip: the shrunk text kernel grown back by area × ratio / perimeter.
        let grow = bw * bh * UNCLIP_RATIO / (2.0 * (bw + bh));
        boxes.push(Box4 {
            x0: ((x0 as f32 - grow) * sx).max(0.0),
            y0: ((y0 as f32 - grow) * sy).max(0.0),
            x1: (((x1 + 1) as f32 + grow) * sx).min(w as f32),
            y1: (((y1 + 1) as f32 + grow) * sy).min(h as f32),
        });
    }
    Ok(boxes)
}

fn recognise(
    rec: &mut Session,
    page: &RgbImage,
    b: Box4,
    alphabet: &[String],
) -> Result<Option<String>, Failure> {
    let (x, y) = (b.x0 as u32, b.y0 as u32);
    let (w, h) = ((b.x1 - b.x0) as u32, (b.y1 - b.y0) as u32);
    if w < 2 || h < 2 {
        return Ok(None);
    }
    let crop = page
        .view(x, y, w.min(page.width() - x), h.min(page.height() - y))
        .to_image();
    let width = ((REC_HEIGHT as f32 * w as f32 / h as f32).ceil() as u32).max(1);
    let line = image::imageops::resize(&crop, width, REC_HEIGHT, FilterType::Triangle);
    // Padded to at least the model's 320 px, as RapidOCR does.
    let input = tensor(&line, width.max(REC_MIN_WIDTH))?;
    let outputs = rec.run(ort::inputs![input])?;
    let (shape, probs) = outputs[0].try_extract_tensor::<f32>()?;
    let (steps, classes) = (shape[1] as usize, shape[2] as usize);
    let mut text = String::new();
    let (mut score, mut kept, mut last) = (0f32, 0usize, 0usize);
    for t in 0..steps {
        let row = &probs[t * classes..(t + 1) * classes];
        let (best, p) = row
            .iter()
            .copied()
            .enumerate()
            .fold((0, f32::MIN), |a, (i, p)| if p > a.1 { (i, p) } else { a });
        if best != 0 && best != last {
            text.push_str(alphabet.get(best).map_or("", String::as_str));
            score += p;
            kept += 1;
        }
        last = best;
    }
    if kept == 0 || score / (kept as f32) < TEXT_SCORE {
        return Ok(None);
    }
    Ok(Some(text.trim().to_owned()))
}

/// Lines top to bottom; boxes that overlap vertically by half their
/// height are one line, read left to right.
fn reading_order(mut boxes: Vec<(Box4, String)>) -> String {
    boxes.sort_by(|a, b| (a.0.y0 + a.0.y1).total_cmp(&(b.0.y0 + b.0.y1)));
    let mut lines: Vec<Vec<(Box4, String)>> = Vec::new();
    for item in boxes {
        let same = lines.last().is_some_and(|line| {
            let first = &line[0].0;
            let overlap = first.y1.min(item.0.y1) - first.y0.max(item.0.y0);
            overlap > 0.5 * (item.0.y1 - item.0.y0).min(first.y1 - first.y0)
        });
        if same {
            lines.last_mut().expect("a line").push(item);
        } else {
            lines.push(vec![item]);
        }
    }
    let mut out = String::new();
    for mut line in lines {
        line.sort_by(|a, b| a.0.x0.total_cmp(&b.0.x0));
        let words: Vec<&str> = line.iter().map(|(_, t)| t.as_str()).collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}
