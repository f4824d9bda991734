//! The words that describe a line of the page's table: a row's words
//! parted by the line's numbers, without the references printed before
//! a description (`Art-Nr-Kunde: SE_KR`).

use sift_locate::pages::SearchWord;

use super::printed::{PrintedLine, PrintedRows};

impl PrintedRows<'_> {
    /// The words that describe the line `line` prints on `row`. The row's
    /// words are parted by the line's numbers into stretches, each without
    /// a leading position or article number (words without a letter). A
    /// description holds a word of letters alone, three or more. The
    /// stretch before the numbers, when it is one; else of the other
    /// stretches and the next row's words (when that row prints no
    /// number: a description set on a line below), the one with the most
    /// letters; else the words before the numbers (an article code,
    /// `ZS997`). `None` when there are none.
    pub(super) fn description_of(&self, row: (usize, usize), line: &PrintedLine) -> Option<String> {
        self.row_description(row, line).map(|(text, _)| text)
    }

    /// The row's own description, printed before its numbers (see
    /// [`Self::description_of`]), if it prints one there.
    pub(super) fn description_before_numbers(
        &self,
        row: (usize, usize),
        line: &PrintedLine,
    ) -> Option<String> {
        self.row_description(row, line)
            .filter(|(_, before)| *before)
            .map(|(text, _)| text)
    }

    /// [`Self::description_of`], and whether it is printed before the
    /// numbers.
    fn row_description(&self, row: (usize, usize), line: &PrintedLine) -> Option<(String, bool)> {
        let (page, index) = row;
        let words = &self.pages[page].words;
        let range = self.pages[page].lines.get(index)?.clone();
        let numbers: Vec<std::ops::Range<usize>> = [line.left.run, line.right.run, line.amount.run]
            .iter()
            .map(|&run| self.runs[run].words.clone())
            .collect();
        let lettered = |w: &usize| words[*w].text.chars().any(char::is_alphabetic);
        let worded = |stretch: &[usize]| {
            stretch.iter().any(|&w| {
                let text = &words[w].text;
                text.chars().filter(|c| c.is_alphabetic()).count() >= 3
                    && !text.chars().any(|c| c.is_ascii_digit())
            })
        };
        let text = |stretch: &[usize]| {
            stretch
                .iter()
                .map(|&w| &*words[w].text)
                .collect::<Vec<_>>()
                .join(" ")
        };
        // The row's words parted by the line's numbers.
        let mut stretches: Vec<Vec<usize>> = vec![Vec::new()];
        for w in range.clone() {
            if numbers.iter().any(|n| n.contains(&w)) {
                stretches.push(Vec::new());
            } else if let Some(last) = stretches.last_mut() {
                last.push(w);
            }
        }
        let stretches: Vec<Vec<usize>> = stretches
            .into_iter()
            .map(|s| s.into_iter().skip_while(|w| !lettered(w)).collect())
            .collect();
        let below = (page, index + 1);
        let next: Vec<usize> = self.pages[page]
            .lines
            .get(below.1)
            .filter(|_| !self.prints_amounts(below, 0..0))
            .map(|next| next.clone().collect())
            .unwrap_or_default();
        let letters = |stretch: &[usize]| -> usize {
            stretch
                .iter()
                .map(|&w| words[w].text.chars().filter(|c| c.is_alphabetic()).count())
                .sum()
        };
        // The words before the numbers, where they are a description
        // (without the references printed before it); else the most
        // letters: a unit between the numbers (`KWh`) loses to the
        // description below; a tie goes to the row's own.
        if let Some(before) = stretches.first().filter(|s| worded(s)) {
            let described = after_references(words, before);
            return Some((
                text(if worded(described) { described } else { before }),
                true,
            ));
        }
        let mut best: Option<&[usize]> = None;
        for stretch in stretches.iter().map(Vec::as_slice).chain([next.as_slice()]) {
            // A reference's label alone (`Art-Nr-Lieferant:`) is none.
            let stretch = after_references(words, stretch);
            if worded(stretch) && best.is_none_or(|b| letters(stretch) > letters(b)) {
                best = Some(stretch);
            }
        }
        // A unit and a rate (`Stk 0%`) lose to an article code printed
        // before the numbers (`TLA-LED-3XAAA`), which the line is sold as.
        let before = stretches.first().filter(|s| !s.is_empty());
        if best.is_some_and(|b| letters(b) <= UNIT_LETTERS) && before.is_some() {
            best = None;
        }
        best.or(before.map(Vec::as_slice))
            .map(|found| (text(found), false))
    }
}

/// The most letters a quantity's unit prints (`Stk`, `KWh`, `m²`).
const UNIT_LETTERS: usize = 3;

/// The words after the references a row prints before a line's
/// description (`Art-Nr-Kunde: SE_KR Kunstrasen grün`): each a label
/// ending in a colon with the codes after it (words with a digit or an
/// underscore). The label is a reference's when codes follow it, when
/// nothing does, or when it is abbreviated (`Art-Nr-Kunde:`, `Art.-Nr.:`);
/// else it is the description's own (`Luftballon: Bunt, ca. 500ml`).
fn after_references<'w>(words: &[SearchWord], stretch: &'w [usize]) -> &'w [usize] {
    let code = |w: usize| {
        words[w]
            .text
            .chars()
            .any(|c| c.is_ascii_digit() || c == '_')
    };
    let abbreviated = |w: usize| {
        let label = words[w].text.trim_end_matches(':');
        label.contains(['-', '.'])
    };
    let mut at = 0;
    while at < stretch.len() && words[stretch[at]].text.ends_with(':') {
        let codes = stretch[at + 1..].iter().take_while(|&&w| code(w)).count();
        if codes == 0 && at + 1 < stretch.len() && !abbreviated(stretch[at]) {
            break;
        }
        at += 1 + codes;
    }
    &stretch[at..]
}
