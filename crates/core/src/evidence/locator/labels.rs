//! Labels on the page: each word folded as labels are compared, a
//! field's label phrases found on each line, and the score a value gets
//! from the label that governs it (before it on its line, or above it in
//! its column).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::fields::FieldSpec;
use super::lexicon::{self, Concept};
use crate::evidence::pages::SearchPage;

/// The best score of a value labelled on its own line starts here; one
/// under a label on the line above, at [`ABOVE`].
pub(super) const SAME_LINE: i32 = 100;
pub(super) const ABOVE: i32 = 60;
/// A label that names something else (`Subtotal` for the total).
const RIVAL: i32 = -100;

/// A label phrase found on a line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Occurrence {
    /// Word indexes on the page.
    pub start: usize,
    pub end: usize,
    /// How many words it has: a longer phrase says more.
    pub len: usize,
    pub rival: bool,
}

/// Each word of each page folded for label matching.
pub(super) struct FoldedPages(Vec<Vec<String>>);

impl FoldedPages {
    pub fn new(pages: &[SearchPage]) -> Self {
        Self(
            pages
                .iter()
                .map(|p| p.words.iter().map(|w| fold_word(&w.text)).collect())
                .collect(),
        )
    }
}

/// A word as labels are compared: lower case, marks dropped, and every
/// way of writing "number" (`No.`, `Nr`, `N°`, `#`) as `no`.
pub(super) fn fold_word(word: &str) -> String {
    if word.starts_with('#') && word.chars().skip(1).all(|c| !c.is_alphanumeric()) {
        return "no".to_owned();
    }
    // A bracketed tail is the label's unit or currency, not its word:
    // `Total(MYR):` is `total`, `Item(s)` is `item`.
    let word = match word.find(['(', '[']) {
        Some(at) if at > 0 => &word[..at],
        _ => word,
    };
    let folded: String = word
        .chars()
        .filter(|c| c.is_alphanumeric() && !matches!(c, 'º' | 'ª'))
        .flat_map(char::to_lowercase)
        .collect();
    match folded.as_str() {
        "nr" | "n" | "num" | "nummer" | "number" | "numéro" | "numero" | "número" => {
            "no".to_owned()
        }
        // `Amt Due`, `Total Amt`: receipts shorten "amount".
        "amt" => "amount".to_owned(),
        _ => folded,
    }
}

/// The field's label phrases, folded: its own name's words and its
/// concept's labels, then the rivals' that are not also its own.
pub(super) fn phrases(spec: &FieldSpec) -> Vec<(Vec<String>, bool)> {
    let fold = |p: &str| -> Vec<String> {
        p.split_whitespace()
            .map(fold_word)
            .filter(|w| !w.is_empty())
            .collect()
    };
    let mut out: Vec<(Vec<String>, bool)> = Vec::new();
    // The first of equal phrases is kept: a field's own label over a rival's.
    let mut seen: HashSet<Vec<String>> = HashSet::new();
    let mut add = |words: Vec<String>, rival: bool| {
        if !words.is_empty() && seen.insert(words.clone()) {
            out.push((words, rival));
        }
    };
    add(fold(&spec.own_label), false);
    if let Some(concept) = spec.concept {
        for label in lexicon::labels(concept) {
            add(fold(label), false);
        }
        for label in lexicon::rival_labels(concept) {
            add(fold(label), true);
        }
    }
    out
}

/// Every label phrase on each line of each page, without those inside a
/// longer one found at the same place.
pub(super) fn occurrences(
    pages: &[SearchPage],
    folded: &FoldedPages,
    phrases: &[(Vec<String>, bool)],
) -> Vec<Vec<Vec<Occurrence>>> {
    // The phrases by their first word, so that each word of a line is
    // looked up once rather than every phrase tried at every word.
    let mut by_first: HashMap<&str, Vec<(&[String], bool)>> = HashMap::new();
    for (phrase, rival) in phrases {
        if let Some(first) = phrase.first() {
            by_first
                .entry(first.as_str())
                .or_default()
                .push((phrase, *rival));
        }
    }
    pages
        .iter()
        .zip(&folded.0)
        .map(|(page, words)| {
            page.lines
                .iter()
                .map(|line| {
                    let mut found: Vec<Occurrence> = Vec::new();
                    for start in line.clone() {
                        let Some(starting) = by_first.get(words[start].as_str()) else {
                            continue;
                        };
                        for (phrase, rival) in starting {
                            let end = start + phrase.len();
                            if end <= line.end && words[start..end] == phrase[..] {
                                found.push(Occurrence {
                                    start,
                                    end,
                                    len: phrase.len(),
                                    rival: *rival,
                                });
                            }
                        }
                    }
                    if found.len() > 1 {
                        let all = found.clone();
                        found.retain(|o| {
                            !all.iter()
                                .any(|b| b.len > o.len && b.start <= o.start && o.end <= b.end)
                        });
                    }
                    found
                })
                .collect()
        })
        .collect()
}

/// The score a value at `words` of page `page` gets from the label that
/// governs it: the nearest label ending before it on its line, else the
/// one above it on the line before (by its box's columns when the page
/// has boxes, else by its place in the line).
pub(super) fn label_score(
    pages: &[SearchPage],
    found: &[Vec<Vec<Occurrence>>],
    page: usize,
    words: &Range<usize>,
) -> i32 {
    let search = &pages[page];
    let line = search.words[words.start].line;
    let mut before: Vec<&Occurrence> = found[page][line]
        .iter()
        .filter(|o| o.end <= words.start)
        .collect();
    before.sort_by_key(|o| std::cmp::Reverse((o.end, o.len)));
    if let Some(nearest) = before.first() {
        // The labels chained before the value, each at most a word (a
        // `:`) after the one before it, govern it together: `Invoice No :
        // #` says more than `#`, and `Contract No.` is a contract's.
        let mut chain = vec![*nearest];
        for o in &before[1..] {
            let last = chain[chain.len() - 1];
            if o.end <= last.start && last.start - o.end <= 1 {
                chain.push(o);
            }
        }
        if chain.iter().any(|o| o.rival) {
            return RIVAL;
        }
        let len: usize = chain.iter().map(|o| o.len).sum();
        // Each word between a label and its value makes it less its own.
        let distance = 3 * (words.start - nearest.end).min(10) as i32;
        return SAME_LINE + 8 * len as i32 - distance;
    }
    if line == 0 {
        return 0;
    }
    let above = &found[page][line - 1];
    let value_box = search.words[words.start].bbox;
    let value_column = words.start - search.lines[line].start;
    let governing = above
        .iter()
        .map(|o| {
            let offset = match (value_box, search.words[o.start].bbox) {
                (Some(v), Some(_)) => {
                    // Columns overlap: the label's words span the value's left edge
                    // or start within it.
                    let (l, r) = span(search, o.start..o.end);
                    let (vl, vr) = (v.x, v.x + v.width);
                    if l <= vr && vl <= r {
                        0
                    } else {
                        let gap = if r < vl { vl - r } else { l - vr };
                        // A gap of a tenth of the page is as far as a
                        // column reaches.
                        if gap > 0.1 {
                            usize::MAX
                        } else {
                            (gap * 100.0) as usize
                        }
                    }
                }
                _ => (o.start - search.lines[line - 1].start).abs_diff(value_column),
            };
            (offset, o)
        })
        .filter(|(offset, _)| *offset != usize::MAX)
        .min_by_key(|(offset, o)| (*offset, usize::MAX - o.len));
    match governing {
        Some((_, o)) if o.rival => RIVAL,
        Some((offset, o)) => ABOVE + 8 * o.len as i32 - offset.min(20) as i32,
        None => 0,
    }
}

/// The left and right edges of a run of words with boxes.
fn span(page: &SearchPage, words: Range<usize>) -> (f32, f32) {
    let boxes = page.words[words].iter().filter_map(|w| w.bbox);
    boxes.fold((f32::MAX, f32::MIN), |(l, r), b| {
        (l.min(b.x), r.max(b.x + b.width))
    })
}

/// For each line of each page, whether one of its words folds to one of `words`.
pub(super) fn lines_with(
    folded: &FoldedPages,
    pages: &[SearchPage],
    words: &[&str],
) -> Vec<Vec<bool>> {
    pages
        .iter()
        .zip(&folded.0)
        .map(|(page, folded)| {
            page.lines
                .iter()
                .map(|line| {
                    folded[line.clone()]
                        .iter()
                        .any(|w| words.contains(&w.as_str()))
                })
                .collect()
        })
        .collect()
}

/// For each line of each page, whether a total's label is on it.
pub(super) fn total_lines(pages: &[SearchPage], folded: &FoldedPages) -> Vec<Vec<bool>> {
    let phrases: Vec<(Vec<String>, bool)> = lexicon::labels(Concept::Total)
        .iter()
        .map(|label| (label.split_whitespace().map(fold_word).collect(), false))
        .collect();
    occurrences(pages, folded, &phrases)
        .into_iter()
        .map(|lines| lines.into_iter().map(|found| !found.is_empty()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_words_fold_to_one() {
        for w in ["No.", "Nr", "N°", "#", "#:", "Nº", "no", "Number", "numéro"] {
            assert_eq!(fold_word(w), "no", "{w}");
        }
        assert_eq!(fold_word("Rechnungs-Nr."), "rechnungsnr");
        assert_eq!(fold_word("Date:"), "date");
        assert_eq!(fold_word("Total(MYR):"), "total");
        assert_eq!(fold_word("Item(s)"), "item");
        assert_eq!(fold_word("Amt"), "amount");
        assert_eq!(fold_word("(Excluding"), "excluding");
    }
}
