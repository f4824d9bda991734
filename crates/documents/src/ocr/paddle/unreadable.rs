//! The characters PaddleOCR cannot read, taken from Tesseract's reading.
//!
//! The PP-OCRv4 recogniser's alphabet (Chinese and English) lacks `€`,
//! `£`, `ß`, `ö`, `Ä`, `Ö`, `ç`, `ñ`, `ê` and others the languages Sift
//! reads print: it reads `Gesamtbetrag: € 4.904,94` as `Gesamtbetrag:
//! 4.904,94`, `Straße` as `StraBe` and `£ 120.50` as `f 120.50`. So the
//! sign that names a total's currency would be lost on every scanned
//! euro invoice. Tesseract (with the page's languages) reads them; where
//! one of its words holds such a character, and it read the word
//! confidently, the character is put back:
//! - a word of PaddleOCR's in the same place whose other characters are
//!   the same (each unreadable character standing for one character of
//!   PaddleOCR's or none: `GroBe` is `Größe`, `49,90` is `49,90€`) takes
//!   Tesseract's text;
//! - otherwise, unreadable characters at the start or end of the word
//!   (a currency sign glued to its amount) go to PaddleOCR's word there;
//! - a word of nothing but unreadable characters (`€` alone) that is
//!   none of PaddleOCR's words joins the PaddleOCR line it stands on,
//!   before or after the word it overlaps (PaddleOCR's box of `4.904,94`
//!   can reach over a `€` it did not read).

use crate::ocr::layout::TsvWord;

/// Tesseract's words under this confidence are left out: on receipt
/// photos its stray marks read as `£` or `¥` at low confidence.
const MIN_CONFIDENCE: f32 = 80.0;

/// Puts back into `words` (PaddleOCR's, in reading order) the characters
/// `readable` says PaddleOCR's alphabet lacks, from `other` (Tesseract's
/// reading of the same page, in the same pixels). See the module's note.
pub(super) fn restore_unreadable(
    words: &mut Vec<TsvWord>,
    other: &[TsvWord],
    readable: impl Fn(char) -> bool,
) {
    let unreadable = |c: char| !c.is_whitespace() && !readable(c);
    for t in other {
        if t.confidence < MIN_CONFIDENCE || !t.text.chars().any(unreadable) {
            continue;
        }
        // Boxes drawn by two readings touch at their edges; a word is in
        // the same place when it overlaps half the narrower one.
        let over: Vec<usize> = (0..words.len())
            .filter(|&i| {
                let narrower = words[i].width.min(t.width);
                same_line(&words[i], t) && horizontal_overlap(&words[i], t) >= 0.5 * narrower
            })
            .collect();
        if let [i] = over.as_slice() {
            let word = &mut words[*i];
            if fits(&t.text, &word.text, unreadable) {
                word.text = t.text.clone();
                continue;
            }
            if let Some((prefix, suffix)) = affixes(&t.text, unreadable) {
                word.text = format!("{prefix}{}{suffix}", word.text);
                continue;
            }
        }
        if t.text.chars().all(unreadable) {
            insert_beside(words, t);
        }
    }
}

/// Whether the boxes overlap vertically by half the lower one's height.
fn same_line(a: &TsvWord, b: &TsvWord) -> bool {
    let overlap = (a.top + a.height).min(b.top + b.height) - a.top.max(b.top);
    overlap > 0.5 * a.height.min(b.height)
}

fn horizontal_overlap(a: &TsvWord, b: &TsvWord) -> f32 {
    (a.left + a.width).min(b.left + b.width) - a.left.max(b.left)
}

/// Whether `tesseract` reads as `paddle` where each unreadable character
/// of it stands for one character of `paddle` or for none (by dynamic
/// programming: `row[j]` says whether the characters of `tesseract` so
/// far read as the first `j` of `paddle`).
fn fits(tesseract: &str, paddle: &str, unreadable: impl Fn(char) -> bool) -> bool {
    let p: Vec<char> = paddle.chars().collect();
    let mut row = vec![false; p.len() + 1];
    row[0] = true;
    for c in tesseract.chars() {
        let mut next = vec![false; p.len() + 1];
        for j in 0..=p.len() {
            let after_one = j > 0 && row[j - 1];
            next[j] = if unreadable(c) {
                row[j] || after_one
            } else {
                after_one && p[j - 1] == c
            };
        }
        row = next;
    }
    row[p.len()]
}

/// The unreadable characters before and after a word whose middle holds
/// none, when there are any and the middle is not empty.
fn affixes(text: &str, unreadable: impl Fn(char) -> bool + Copy) -> Option<(&str, &str)> {
    let middle = text.trim_start_matches(unreadable);
    let prefix = &text[..text.len() - middle.len()];
    let core = middle.trim_end_matches(unreadable);
    let suffix = &middle[core.len()..];
    let clean = !core.is_empty() && !core.chars().any(unreadable);
    (clean && !(prefix.is_empty() && suffix.is_empty())).then_some((prefix, suffix))
}

/// `t` as a word of the PaddleOCR line it stands on, in its place from
/// left to right (by the boxes' middles); left out when no line of
/// PaddleOCR's is beside it.
fn insert_beside(words: &mut Vec<TsvWord>, t: &TsvWord) {
    let Some(neighbour) = words
        .iter()
        .filter(|w| same_line(w, t))
        .min_by(|a, b| gap(a, t).total_cmp(&gap(b, t)))
    else {
        return;
    };
    let key = (neighbour.block, neighbour.paragraph, neighbour.line);
    let on_line = |w: &TsvWord| (w.block, w.paragraph, w.line) == key;
    let centre = |w: &TsvWord| w.left + w.width / 2.0;
    let at = match words
        .iter()
        .position(|w| on_line(w) && centre(w) > centre(t))
    {
        Some(i) => i,
        None => words
            .iter()
            .rposition(on_line)
            .map_or(words.len(), |i| i + 1),
    };
    let mut word = t.clone();
    (word.block, word.paragraph, word.line) = key;
    words.insert(at, word);
}

/// The horizontal distance between two boxes (0 when they overlap).
fn gap(a: &TsvWord, b: &TsvWord) -> f32 {
    (-horizontal_overlap(a, b)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ocr::layout::reading_text;

    /// Characters the PP-OCRv4 alphabet lacks, as its metadata lists it.
    fn unreadable(c: char) -> bool {
        "€£ßöÄÖçñê".contains(c)
    }

    fn readable(c: char) -> bool {
        !unreadable(c)
    }

    fn word(line: u32, left: f32, width: f32, confidence: f32, text: &str) -> TsvWord {
        TsvWord {
            block: 1,
            paragraph: 1,
            line,
            left,
            top: 40.0 * line as f32,
            width,
            height: 30.0,
            confidence,
            text: text.into(),
        }
    }

    /// A word of Tesseract's on the `line`th line's place: its own line
    /// numbers are another reading's, so they never match PaddleOCR's.
    fn other(line: u32, left: f32, width: f32, confidence: f32, text: &str) -> TsvWord {
        TsvWord {
            block: 7,
            line: 9,
            ..word(line, left, width, confidence, text)
        }
    }

    #[test]
    fn a_word_whose_other_characters_agree_takes_tesseracts_letters() {
        let mut paddle = vec![
            word(1, 10.0, 120.0, 95.0, "GroBe"),
            word(1, 140.0, 60.0, 95.0, "49,90"),
        ];
        let tesseract = [
            other(1, 12.0, 118.0, 91.0, "Größe"),
            other(1, 141.0, 70.0, 90.0, "49,90€"),
        ];
        restore_unreadable(&mut paddle, &tesseract, readable);
        assert_eq!(reading_text(&paddle), "Größe 49,90€");
    }

    #[test]
    fn a_sign_glued_to_an_amount_is_put_back_even_where_a_digit_differs() {
        let mut paddle = vec![word(1, 140.0, 60.0, 95.0, "49,90")];
        let tesseract = [other(1, 141.0, 70.0, 90.0, "49,96€")];
        restore_unreadable(&mut paddle, &tesseract, readable);
        assert_eq!(reading_text(&paddle), "49,90€");
    }

    #[test]
    fn a_sign_paddleocr_read_nothing_of_joins_its_line_in_place() {
        let mut paddle = vec![
            word(1, 10.0, 200.0, 95.0, "Gesamtbetrag:"),
            word(1, 260.0, 120.0, 95.0, "4.904,94"),
            word(2, 10.0, 100.0, 95.0, "Danke"),
        ];
        let tesseract = [other(1, 225.0, 25.0, 92.0, "€")];
        restore_unreadable(&mut paddle, &tesseract, readable);
        assert_eq!(reading_text(&paddle), "Gesamtbetrag: € 4.904,94\nDanke");
        assert_eq!((paddle[1].left, paddle[1].line), (225.0, 1));
    }

    #[test]
    fn a_sign_under_the_edge_of_a_paddleocr_word_goes_before_it() {
        let mut paddle = vec![
            word(1, 10.0, 200.0, 95.0, "Gesamtbetrag:"),
            word(1, 230.0, 150.0, 95.0, "4.904,94"),
        ];
        let tesseract = [
            other(1, 232.0, 30.0, 92.0, "€"),
            other(1, 272.0, 108.0, 96.0, "4.904,94"),
        ];
        restore_unreadable(&mut paddle, &tesseract, readable);
        assert_eq!(reading_text(&paddle), "Gesamtbetrag: € 4.904,94");
    }

    #[test]
    fn a_sign_paddleocr_misread_as_a_letter_is_put_back() {
        let mut paddle = vec![
            word(1, 10.0, 90.0, 95.0, "Total"),
            word(1, 110.0, 18.0, 95.0, "f"),
            word(1, 135.0, 90.0, 95.0, "120.50"),
        ];
        let tesseract = [other(1, 108.0, 20.0, 93.0, "£")];
        restore_unreadable(&mut paddle, &tesseract, readable);
        assert_eq!(reading_text(&paddle), "Total £ 120.50");
    }

    #[test]
    fn unsure_or_readable_or_unplaced_words_change_nothing() {
        let mut paddle = vec![
            word(1, 10.0, 60.0, 95.0, "Muller"),
            word(1, 100.0, 60.0, 95.0, "15.50"),
        ];
        let tesseract = [
            // Under the confidence asked for: a receipt's stray mark.
            other(1, 100.0, 60.0, 40.0, "£15.50"),
            // Every character readable: PaddleOCR's reading stands.
            other(1, 10.0, 60.0, 96.0, "Müller"),
            // A sign on no line of PaddleOCR's.
            other(5, 10.0, 20.0, 96.0, "€"),
        ];
        restore_unreadable(&mut paddle, &tesseract, |c| c != '£' && c != '€');
        assert_eq!(reading_text(&paddle), "Muller 15.50");
    }

    #[test]
    fn a_word_that_spans_two_of_paddleocrs_is_left_alone() {
        let mut paddle = vec![
            word(1, 10.0, 50.0, 95.0, "Haupt"),
            word(1, 70.0, 60.0, 95.0, "straBe"),
        ];
        let tesseract = [other(1, 10.0, 120.0, 93.0, "Hauptstraße")];
        restore_unreadable(&mut paddle, &tesseract, readable);
        assert_eq!(reading_text(&paddle), "Haupt straBe");
    }

    #[test]
    fn an_unreadable_character_stands_for_one_character_or_none() {
        assert!(fits("Straße", "StraBe", unreadable));
        assert!(fits("Straße", "Strae", unreadable));
        assert!(fits("€5", "5", unreadable));
        assert!(!fits("Straße", "StraBBe", unreadable));
        assert!(!fits("Strasse", "StraBe", unreadable));
        assert_eq!(affixes("€4,90", unreadable), Some(("€", "")));
        assert_eq!(affixes("4,90€", unreadable), Some(("", "€")));
        assert_eq!(affixes("Größe", unreadable), None);
        assert_eq!(affixes("€", unreadable), None);
    }
}
