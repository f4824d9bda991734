//! A recognised line as words with boxes, and lines in reading order.
//!
//! The recogniser reads a whole line and often drops the space between
//! two words (`Billamount CHF3'949.75`, `Date 09/01/20198:01:11PM`). Two
//! things put the spaces back:
//! - Tesseract's reading of the same page: where it saw a gap between two
//!   words of the line, between two characters' middles and next to a
//!   letter, is a space (Tesseract cuts letters into words well, but
//!   a receipt's dot-matrix digits badly: `12- 01-19` for `12-01-19`);
//! - the line's image: a run of columns without ink between two
//!   characters as wide as most of the line's stride from one character
//!   to the next (in a receipt's fixed-width digits a `1` alone leaves
//!   half a stride blank either side, so less is no space).
//!
//! A word's box reaches from the blank columns before its first character
//! to those after its last (its ink's edges).

use super::detect::Box4;
use crate::ocr::layout::TsvWord;

/// A run of blank columns at least this share of the line's median
/// stride between characters is a space (see the module's note).
const SPACE_SHARE: f32 = 0.8;

/// One character as read: its text, probability and the step it was read at.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ReadChar {
    pub text: String,
    pub probability: f32,
    pub step: usize,
}

/// A line as decoded: its characters, a step's width in page pixels, and
/// the runs of columns without ink, from and to, in steps.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Decoded {
    pub chars: Vec<ReadChar>,
    pub step_px: f32,
    pub blanks: Vec<(f32, f32)>,
}

impl Decoded {
    /// The mean probability of its characters.
    pub fn score(&self) -> f32 {
        let sum: f32 = self.chars.iter().map(|c| c.probability).sum();
        sum / self.chars.len().max(1) as f32
    }
}

/// A class of the recogniser's alphabet as read on a page: its fullwidth
/// forms (U+FF01 to U+FF5E, `：`, `（`, `０`) as their ASCII characters.
/// The Chinese alphabet lists both, and on Latin pages the recogniser
/// now and then picks the fullwidth one (`：R87654321012345`), which no
/// label or number rule knows.
pub(super) fn halfwidth(class: &str) -> String {
    class
        .chars()
        .map(|c| match u32::from(c) {
            code @ 0xFF01..=0xFF5E => char::from_u32(code - 0xFEE0).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Greedy CTC decoding of `probs` (`steps` × `classes`): at each step the
/// likeliest class, repeats and blanks (class 0) dropped.
pub(super) fn decode(probs: &[f32], steps: usize, classes: usize, alphabet: &[String]) -> Decoded {
    let mut chars = Vec::new();
    let mut last = 0usize;
    for t in 0..steps {
        let row = &probs[t * classes..(t + 1) * classes];
        let (best, p) = row
            .iter()
            .copied()
            .enumerate()
            .fold((0, f32::MIN), |a, (i, p)| if p > a.1 { (i, p) } else { a });
        if best != 0 && best != last {
            chars.push(ReadChar {
                text: alphabet.get(best).cloned().unwrap_or_default(),
                probability: p,
                step: t,
            });
        }
        last = best;
    }
    Decoded {
        chars,
        step_px: 1.0,
        blanks: Vec::new(),
    }
}

/// The runs of columns of a line's image (`width` × `height`, grey levels
/// row by row) with no ink in its middle rows (the top and bottom fifth
/// can hold the edges of the lines above and below), as from and to
/// column. Ink is darker than the middle of the line's darkest and
/// lightest levels.
pub(super) fn blank_columns(grey: &[u8], width: usize, height: usize) -> Vec<(usize, usize)> {
    let rows = height / 5..height - height / 5;
    let (mut darkest, mut lightest) = (u8::MAX, u8::MIN);
    for &v in grey {
        darkest = darkest.min(v);
        lightest = lightest.max(v);
    }
    let middle = (u16::from(darkest) + u16::from(lightest)) / 2;
    let mut runs = Vec::new();
    let mut start = None;
    for x in 0..=width {
        let blank = x < width
            && rows
                .clone()
                .all(|y| u16::from(grey[y * width + x]) >= middle);
        match (blank, start) {
            (true, None) => start = Some(x),
            (false, Some(s)) => {
                runs.push((s, x));
                start = None;
            }
            _ => {}
        }
    }
    runs
}

/// The words of a line read in `b`, as line `line` of block 1. Words are
/// split at a read space, at one of `gaps` (where another reading saw a
/// gap between two words, in page pixels) and at a blank run of
/// [`SPACE_SHARE`] of the median stride; each reaches from the blank run
/// before its first character's middle to the one after its last's (half
/// a median stride out from those middles where there is none).
pub(super) fn line_words(b: Box4, decoded: &Decoded, line: u32, gaps: &[f32]) -> Vec<TsvWord> {
    let chars: Vec<&ReadChar> = decoded.chars.iter().collect();
    let mut strides: Vec<usize> = chars
        .windows(2)
        .filter(|p| !p[0].text.trim().is_empty() && !p[1].text.trim().is_empty())
        .map(|p| p[1].step - p[0].step)
        .collect();
    strides.sort_unstable();
    let median = strides.get(strides.len() / 2).copied().unwrap_or(1).max(1) as f32;
    let at = |step: usize| b.x0 + (step as f32 + 0.5) * decoded.step_px;
    // A gap next to a letter, or a blank run wide enough, between two
    // characters' middles.
    let spaced = |first: &ReadChar, second: &ReadChar| {
        let (a, b) = (first.step, second.step);
        let (from, to) = (a as f32 + 0.5, b as f32 + 0.5);
        let by_a_letter = [first, second]
            .iter()
            .any(|c| c.text.chars().any(char::is_alphabetic));
        (by_a_letter && gaps.iter().any(|&x| at(a) < x && x < at(b)))
            || decoded
                .blanks
                .iter()
                .any(|&(s, e)| s >= from && e <= to && e - s >= SPACE_SHARE * median)
    };
    let mut groups: Vec<Vec<&ReadChar>> = vec![Vec::new()];
    for (i, c) in chars.iter().enumerate() {
        let spaced = i > 0 && spaced(chars[i - 1], c);
        if c.text.trim().is_empty() || spaced {
            groups.push(Vec::new());
        }
        if !c.text.trim().is_empty() {
            groups.last_mut().expect("a group").push(c);
        }
    }
    let half = median * decoded.step_px / 2.0;
    let x = |step: f32| b.x0 + step * decoded.step_px;
    groups
        .into_iter()
        .filter(|g| !g.is_empty())
        .map(|g| {
            // From the blank before its first character's middle to the one
            // after its last's (the ink's edges); half a stride out from
            // those middles where the line has no blank there.
            let (first, last) = (g[0].step as f32 + 0.5, g[g.len() - 1].step as f32 + 0.5);
            let left = decoded
                .blanks
                .iter()
                .filter(|&&(_, e)| e <= first)
                .map(|&(_, e)| x(e))
                .fold(None, |a: Option<f32>, v| Some(a.map_or(v, |a| a.max(v))))
                .unwrap_or(at(g[0].step) - half)
                .max(b.x0);
            let right = decoded
                .blanks
                .iter()
                .filter(|&&(s, _)| s >= last)
                .map(|&(s, _)| x(s))
                .fold(None, |a: Option<f32>, v| Some(a.map_or(v, |a| a.min(v))))
                .unwrap_or(at(g[g.len() - 1].step) + half)
                .min(b.x1);
            let confidence = g.iter().map(|c| c.probability).sum::<f32>() / g.len() as f32;
            TsvWord {
                block: 1,
                paragraph: 1,
                line,
                left,
                top: b.y0,
                width: (right - left).max(1.0),
                height: b.y1 - b.y0,
                confidence: (confidence * 100.0).clamp(0.0, 100.0),
                text: g.iter().map(|c| c.text.as_str()).collect(),
            }
        })
        .collect()
}

/// Where `other`'s words (in pixels `1 / scale` of `b`'s) leave a gap
/// between two words of one of its lines inside `b`: the gaps' middles,
/// in `b`'s pixels.
pub(super) fn word_gaps(b: Box4, other: &[TsvWord], scale: f32) -> Vec<f32> {
    let inside: Vec<&TsvWord> = other
        .iter()
        .filter(|w| {
            let middle = (w.top + w.height / 2.0) * scale;
            let (left, right) = (w.left * scale, (w.left + w.width) * scale);
            b.y0 <= middle && middle <= b.y1 && left < b.x1 && right > b.x0
        })
        .collect();
    let mut gaps = Vec::new();
    for pair in inside.windows(2) {
        let (first, second) = (pair[0], pair[1]);
        let same_line = (first.block, first.paragraph, first.line)
            == (second.block, second.paragraph, second.line);
        let (end, start) = (first.left + first.width, second.left);
        if same_line && end < start {
            gaps.push((end + start) / 2.0 * scale);
        }
    }
    gaps
}

/// Lines top to bottom: boxes that overlap vertically by half the lower
/// one's height are one line, read left to right.
pub(super) fn reading_lines<T>(mut boxes: Vec<(Box4, T)>) -> Vec<Vec<(Box4, T)>> {
    boxes.sort_by(|a, b| (a.0.y0 + a.0.y1).total_cmp(&(b.0.y0 + b.0.y1)));
    let mut lines: Vec<Vec<(Box4, T)>> = Vec::new();
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
    for line in &mut lines {
        line.sort_by(|a, b| a.0.x0.total_cmp(&b.0.x0));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, steps: &[usize], blanks: &[(f32, f32)]) -> Decoded {
        Decoded {
            chars: text
                .chars()
                .zip(steps)
                .map(|(c, &step)| ReadChar {
                    text: c.to_string(),
                    probability: 0.9,
                    step,
                })
                .collect(),
            step_px: 2.0,
            blanks: blanks.to_vec(),
        }
    }

    const LINE: Box4 = Box4 {
        x0: 100.0,
        y0: 10.0,
        x1: 300.0,
        y1: 30.0,
    };

    fn texts(words: &[TsvWord]) -> Vec<&str> {
        words.iter().map(|w| w.text.as_str()).collect()
    }

    #[test]
    fn a_blank_run_between_two_characters_splits_a_line_read_without_its_space() {
        // `Date 09/01` read as `Date09/01`, at a stride of 3 steps: the
        // blank between `e` and `0` is 2.5 steps wide, the one between
        // `a` and `t` 0.8 (a letter's gap).
        let steps = [0, 3, 6, 9, 15, 18, 21, 24, 27];
        let blanks = [(4.0, 4.8), (11.0, 13.5)];
        let words = line_words(LINE, &read("Date09/01", &steps, &blanks), 4, &[]);
        assert_eq!(texts(&words), ["Date", "09/01"]);
        // Each reaches from the blank before its first character to the
        // one after its last (2 px a step from x = 100): `Date` from the
        // line's start (no blank before it; half a stride out of the
        // first middle, held inside the box) to the blank at step 11;
        // `09/01` from the blank's end at step 13.5 to half a stride past
        // its last middle (step 27.5, no blank after it).
        assert_eq!((words[0].left, words[0].width), (100.0, 22.0));
        assert_eq!((words[1].left, words[1].width), (127.0, 31.0));
        assert_eq!(
            (words[1].line, words[1].top, words[1].height),
            (4, 10.0, 20.0)
        );
        assert!((words[1].confidence - 90.0).abs() < 1e-3);
    }

    #[test]
    fn a_read_space_splits_and_a_wide_blank_outside_two_middles_does_not() {
        let steps = [0, 3, 6, 9, 12, 15, 18];
        let words = line_words(LINE, &read("RM 9.50", &steps, &[]), 1, &[]);
        assert_eq!(texts(&words), ["RM", "9.50"]);
        // A wide blank before the first letter, another after the last.
        let blanks = [(-5.0, 0.2), (12.8, 20.0)];
        let words = line_words(LINE, &read("TOTAL", &[0, 3, 6, 9, 12], &blanks), 1, &[]);
        assert_eq!(texts(&words), ["TOTAL"]);
    }

    #[test]
    fn another_readings_gap_between_two_characters_middles_is_a_space() {
        // `Billamount3'949.75` with no blank wide enough, a step a
        // character (middles at 101 + 2 × step px); the other reading saw
        // gaps at 108 (between `l`, step 3, and `a`, step 4) and at 120
        // (between `t` and `3`). One at 100 is before the first character.
        let steps: Vec<usize> = (0..18).collect();
        let words = line_words(
            LINE,
            &read("Billamount3'949.75", &steps, &[]),
            1,
            &[100.0, 108.0, 120.0],
        );
        assert_eq!(texts(&words), ["Bill", "amount", "3'949.75"]);
        // Between two digits a gap is not enough: `12-01-19` stays whole
        // where the other reading cut it after `12-` (at 106).
        let words = line_words(LINE, &read("12-01-19", &steps, &[]), 1, &[106.0]);
        assert_eq!(texts(&words), ["12-01-19"]);
    }

    #[test]
    fn the_gaps_are_those_between_words_of_one_line_of_the_other_reading_inside_the_box() {
        let word = |line: u32, left: f32, width: f32, top: f32| TsvWord {
            block: 1,
            paragraph: 1,
            line,
            left,
            top,
            width,
            height: 10.0,
            confidence: 90.0,
            text: "w".into(),
        };
        // In pixels twice the box's: two words of line 1 with a gap from
        // 80 to 90, one of line 2 right after them (no gap across lines),
        // and a word of a line below the box.
        let other = [
            word(1, 50.0, 30.0, 8.0),
            word(1, 90.0, 20.0, 8.0),
            word(2, 111.0, 20.0, 8.0),
            word(3, 50.0, 30.0, 40.0),
        ];
        assert_eq!(word_gaps(LINE, &other, 2.0), [170.0]);
    }

    #[test]
    fn blank_columns_are_those_without_ink_in_the_middle_rows() {
        // 6 columns, 10 rows: ink (0) in columns 1 and 4; column 2 is
        // dark only in its top row (the line above), column 5 blank.
        let (w, h) = (6, 10);
        let mut grey = vec![255u8; w * h];
        for y in 0..h {
            grey[y * w + 1] = 0;
            grey[y * w + 4] = 0;
        }
        grey[2] = 0;
        assert_eq!(blank_columns(&grey, w, h), [(0, 1), (2, 4), (5, 6)]);
    }

    #[test]
    fn fullwidth_forms_read_as_ascii_and_other_characters_stay() {
        assert_eq!(halfwidth("："), ":");
        assert_eq!(halfwidth("（"), "(");
        assert_eq!(halfwidth("０"), "0");
        assert_eq!(halfwidth("～"), "~");
        assert_eq!(halfwidth("。"), "。");
        assert_eq!(halfwidth("é"), "é");
        assert_eq!(halfwidth("A"), "A");
    }

    #[test]
    fn ctc_decoding_drops_blanks_and_repeats_and_keeps_each_characters_step() {
        let alphabet: Vec<String> = ["", "1", "2", " "].map(String::from).to_vec();
        // Steps: 1, 1, blank, 1, 2, blank.
        let mut probs = vec![0f32; 6 * 4];
        for (t, class) in [1, 1, 0, 1, 2, 0].into_iter().enumerate() {
            probs[t * 4 + class] = 0.8;
        }
        let decoded = decode(&probs, 6, 4, &alphabet);
        let read: Vec<(&str, usize)> = decoded
            .chars
            .iter()
            .map(|c| (c.text.as_str(), c.step))
            .collect();
        assert_eq!(read, [("1", 0), ("1", 3), ("2", 4)]);
    }

    #[test]
    fn boxes_that_overlap_by_half_their_height_are_one_line_read_left_to_right() {
        let b = |x0: f32, y0: f32| Box4 {
            x0,
            y0,
            x1: x0 + 50.0,
            y1: y0 + 20.0,
        };
        let lines = reading_lines(vec![
            (b(200.0, 12.0), "9.50"),
            (b(0.0, 10.0), "TOTAL"),
            (b(0.0, 40.0), "CASH"),
        ]);
        let texts: Vec<Vec<&str>> = lines
            .iter()
            .map(|l| l.iter().map(|(_, t)| *t).collect())
            .collect();
        assert_eq!(texts, [vec!["TOTAL", "9.50"], vec!["CASH"]]);
    }
}
