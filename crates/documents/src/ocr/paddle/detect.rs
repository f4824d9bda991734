//! Text lines found on a page: PP-OCRv4's detection model gives each
//! pixel a probability of being text; the connected regions above a
//! threshold, grown back by the unclip ratio, are the lines' boxes.

use image::RgbImage;
use image::imageops::FilterType;
use ort::session::Session;

/// A page is read at most this many pixels on its long side.
const MAX_SIDE: u32 = 2000;
/// Detection sees a page whose short side is at least this long.
const DET_MIN_SIDE: f32 = 736.0;
/// The longest side detection sees. Scaling the short side up to
/// [`DET_MIN_SIDE`] scales the long side as much: without this bound a
/// 2000×1 strip would become 1,472,000×736 pixels, a tensor of 13 GB.
const DET_MAX_SIDE: f32 = 4.0 * MAX_SIDE as f32;
/// A pixel is text above this probability.
const DET_THRESHOLD: f32 = 0.3;
/// A region is kept when its mean probability is above this.
const BOX_THRESHOLD: f32 = 0.5;
/// The model finds a shrunk kernel of each line; its box is grown back by
/// area × ratio / perimeter.
const UNCLIP_RATIO: f32 = 1.6;

/// An axis-aligned box in page pixels: left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Box4 {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

/// The page at most [`MAX_SIDE`] on its long side, and the scale applied.
pub(super) fn bounded(page: &RgbImage) -> (RgbImage, f32) {
    let (w, h) = page.dimensions();
    let long = w.max(h);
    if long <= MAX_SIDE {
        return (page.clone(), 1.0);
    }
    let scale = MAX_SIDE as f32 / long as f32;
    let scaled = image::imageops::resize(
        page,
        ((w as f32 * scale) as u32).max(1),
        ((h as f32 * scale) as u32).max(1),
        FilterType::Triangle,
    );
    (scaled, scale)
}

fn to_multiple_of_32(v: f32) -> u32 {
    ((v / 32.0).round() as u32).max(1) * 32
}

/// The boxes of the text lines on `page`.
pub(super) fn detect(det: &mut Session, page: &RgbImage) -> Result<Vec<Box4>, ort::Error> {
    let (w, h) = page.dimensions();
    let short = w.min(h).max(1) as f32;
    let long = w.max(h).max(1) as f32;
    let ratio = if short < DET_MIN_SIDE {
        (DET_MIN_SIDE / short).min(DET_MAX_SIDE / long).max(1.0)
    } else {
        1.0
    };
    let (dw, dh) = (
        to_multiple_of_32(w as f32 * ratio),
        to_multiple_of_32(h as f32 * ratio),
    );
    let scaled = image::imageops::resize(page, dw, dh, FilterType::Triangle);
    let outputs = det.run(ort::inputs![super::tensor(&scaled, dw)?])?;
    let (shape, prob) = outputs[0].try_extract_tensor::<f32>()?;
    let (mh, mw) = (shape[2] as usize, shape[3] as usize);
    Ok(regions(prob, mw, mh)
        .into_iter()
        .map(|(x0, y0, x1, y1)| {
            let (sx, sy) = (w as f32 / mw as f32, h as f32 / mh as f32);
            let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
            let grow = bw * bh * UNCLIP_RATIO / (2.0 * (bw + bh));
            Box4 {
                x0: ((x0 as f32 - grow) * sx).max(0.0),
                y0: ((y0 as f32 - grow) * sy).max(0.0),
                x1: (((x1 + 1) as f32 + grow) * sx).min(w as f32),
                y1: (((y1 + 1) as f32 + grow) * sy).min(h as f32),
            }
        })
        .collect())
}

/// The bounding boxes (inclusive, in map cells) of the probability map's
/// text regions: the cells above [`DET_THRESHOLD`], dilated by a 2×2
/// kernel as RapidOCR does, joined 8-connected; regions thinner than 3
/// cells or whose mean probability is under [`BOX_THRESHOLD`] are left out.
fn regions(prob: &[f32], mw: usize, mh: usize) -> Vec<(usize, usize, usize, usize)> {
    let on = |y: usize, x: usize| prob[y * mw + x] > DET_THRESHOLD;
    let mut bitmap = vec![false; mh * mw];
    for y in 0..mh {
        for x in 0..mw {
            bitmap[y * mw + x] = on(y, x)
                || (x > 0 && on(y, x - 1))
                || (y > 0 && on(y - 1, x))
                || (x > 0 && y > 0 && on(y - 1, x - 1));
        }
    }
    let mut seen = vec![false; mh * mw];
    let mut found = Vec::new();
    let mut stack = Vec::new();
    for start in 0..mh * mw {
        if !bitmap[start] || seen[start] {
            continue;
        }
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        seen[start] = true;
        stack.push(start);
        while let Some(i) = stack.pop() {
            let (y, x) = (i / mw, i % mw);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            for ny in y.saturating_sub(1)..=(y + 1).min(mh - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(mw - 1) {
                    let j = ny * mw + nx;
                    if bitmap[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        if (x1 - x0 + 1).min(y1 - y0 + 1) < 3 {
            continue;
        }
        // The region's score: the mean probability inside its box ("fast").
        let sum: f32 = (y0..=y1)
            .map(|y| prob[y * mw + x0..=y * mw + x1].iter().sum::<f32>())
            .sum();
        if sum / ((x1 - x0 + 1) * (y1 - y0 + 1)) as f32 >= BOX_THRESHOLD {
            found.push((x0, y0, x1, y1));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_is_the_box_of_its_cells_and_faint_or_thin_ones_are_left_out() {
        let (mw, mh) = (12, 8);
        let mut prob = vec![0f32; mw * mh];
        let mut fill = |x0: usize, y0: usize, x1: usize, y1: usize, p: f32| {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    prob[y * mw + x] = p;
                }
            }
        };
        fill(1, 1, 5, 3, 0.9); // a line
        fill(8, 1, 10, 3, 0.35); // above the threshold, but a faint region
        fill(1, 6, 6, 6, 0.9); // one cell high: dilated to two, still thin
        // Dilation reaches one cell right and down.
        assert_eq!(regions(&prob, mw, mh), vec![(1, 1, 6, 4)]);
    }
}
