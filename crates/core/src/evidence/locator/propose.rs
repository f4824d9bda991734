//! Proposing a field's values from the page: every amount, date,
//! identifier or currency of the document, each scored by the label that
//! governs it (the nearest label before it on its line, else the one
//! above it), then merged by value and ranked.

use std::ops::Range;

use serde_json::{Value, json};

use super::fields::{FieldSpec, ValueKind};
use super::lexicon::{self, Concept};
use crate::evidence::matching::SearchIndex;
use crate::evidence::pages::SearchPage;
use crate::normalise::normalize_date;

/// The best score of a value labelled on its own line starts here; one
/// under a label on the line above, at [`ABOVE`].
pub(super) const SAME_LINE: i32 = 100;
const ABOVE: i32 = 60;
/// A label that names something else (`Subtotal` for the total).
const RIVAL: i32 = -100;

/// One proposal: a value at a place, with its score.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Proposal {
    pub value: Value,
    pub page: usize,
    pub words: Range<usize>,
    pub score: i32,
    /// Its amount, for ranking totals.
    pub amount: Option<f64>,
}

/// A label phrase found on a line.
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    /// Word indexes on the page.
    start: usize,
    end: usize,
    /// How many words it has: a longer phrase says more.
    len: usize,
    rival: bool,
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
fn fold_word(word: &str) -> String {
    if word.starts_with('#') && word.chars().skip(1).all(|c| !c.is_alphanumeric()) {
        return "no".to_owned();
    }
    let folded: String = word
        .chars()
        .filter(|c| c.is_alphanumeric() && !matches!(c, 'º' | 'ª'))
        .flat_map(char::to_lowercase)
        .collect();
    match folded.as_str() {
        "nr" | "n" | "num" | "nummer" | "number" | "numéro" | "numero" | "número" => {
            "no".to_owned()
        }
        _ => folded,
    }
}

/// The field's label phrases, folded: its own name's words and its
/// concept's labels, then the rivals' that are not also its own.
fn phrases(spec: &FieldSpec) -> Vec<(Vec<String>, bool)> {
    let fold = |p: &str| -> Vec<String> {
        p.split_whitespace()
            .map(fold_word)
            .filter(|w| !w.is_empty())
            .collect()
    };
    let mut out: Vec<(Vec<String>, bool)> = Vec::new();
    let add = |words: Vec<String>, rival: bool, out: &mut Vec<(Vec<String>, bool)>| {
        if !words.is_empty() && !out.iter().any(|(w, _)| *w == words) {
            out.push((words, rival));
        }
    };
    add(fold(&spec.own_label), false, &mut out);
    if let Some(concept) = spec.concept {
        for label in lexicon::labels(concept) {
            add(fold(label), false, &mut out);
        }
        for label in lexicon::rival_labels(concept) {
            add(fold(label), true, &mut out);
        }
    }
    out
}

/// Every label phrase on each line of each page, without those inside a
/// longer one found at the same place.
fn occurrences(
    pages: &[SearchPage],
    folded: &FoldedPages,
    phrases: &[(Vec<String>, bool)],
) -> Vec<Vec<Vec<Occurrence>>> {
    pages
        .iter()
        .zip(&folded.0)
        .map(|(page, words)| {
            page.lines
                .iter()
                .map(|line| {
                    let mut found: Vec<Occurrence> = Vec::new();
                    for (phrase, rival) in phrases {
                        let n = phrase.len();
                        if n > line.len() {
                            continue;
                        }
                        for start in line.start..=line.end - n {
                            if words[start..start + n] == phrase[..] {
                                found.push(Occurrence {
                                    start,
                                    end: start + n,
                                    len: n,
                                    rival: *rival,
                                });
                            }
                        }
                    }
                    let all = found.clone();
                    found.retain(|o| {
                        !all.iter()
                            .any(|b| b.len > o.len && b.start <= o.start && o.end <= b.end)
                    });
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
fn label_score(
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

/// Every proposal for `spec` on the pages, scored (not yet merged).
pub(super) fn propose(
    spec: &FieldSpec,
    pages: &[SearchPage],
    index: &SearchIndex<'_>,
    folded: &FoldedPages,
) -> Vec<Proposal> {
    let phrases = phrases(spec);
    let found = occurrences(pages, folded, &phrases);
    let score = |page: usize, words: &Range<usize>| label_score(pages, &found, page, words);
    let mut out = Vec::new();
    match spec.kind {
        ValueKind::Amount => {
            for (page, words, amount) in amounts(pages, index) {
                if spec.integer && amount.fract() != 0.0 {
                    continue;
                }
                // A total of nothing is a zero line (`Discount 0.00`).
                if spec.concept == Some(Concept::Total) && amount == 0.0 {
                    continue;
                }
                let mut s = score(page, &words);
                if s == 0 {
                    // Unlabelled: an amount with cents is likelier money.
                    s = i32::from(has_cents(pages, page, &words));
                }
                let value = if spec.number {
                    if spec.integer {
                        json!(amount as i64)
                    } else {
                        json!(amount)
                    }
                } else {
                    json!(amount.to_string())
                };
                out.push(Proposal {
                    value,
                    page,
                    words,
                    score: s,
                    amount: Some(amount),
                });
            }
        }
        ValueKind::Date => {
            for (page, words, date) in dates(index) {
                // Any date is a better guess than none; a labelled one
                // far better.
                let s = score(page, &words).max(1);
                out.push(Proposal {
                    value: json!(date),
                    page,
                    words,
                    score: s,
                    amount: None,
                });
            }
        }
        ValueKind::Identifier => {
            let in_dates = dates(index);
            for (p, page) in pages.iter().enumerate() {
                for (w, word) in page.words.iter().enumerate() {
                    // An IBAN is printed in groups of four: its words joined.
                    let grouped = (spec.concept == Some(Concept::Iban))
                        .then(|| grouped_iban(page, w))
                        .flatten();
                    let Some((id, end)) =
                        grouped.or_else(|| Some((identifier(&word.text)?, w + 1)))
                    else {
                        continue;
                    };
                    // A year of `March 3, 2024` is a date's.
                    if in_dates
                        .iter()
                        .any(|(dp, dw, _)| *dp == p && dw.contains(&w))
                    {
                        continue;
                    }
                    let words = w..end;
                    let s = score(p, &words);
                    // An identifier is only ever proposed beside its label.
                    if s > 0 {
                        out.push(Proposal {
                            value: json!(id),
                            page: p,
                            words,
                            score: s,
                            amount: None,
                        });
                    }
                }
            }
        }
        ValueKind::Currency => {
            for (p, page) in pages.iter().enumerate() {
                for (w, word) in page.words.iter().enumerate() {
                    let Some(code) = currency(&word.text) else {
                        continue;
                    };
                    let words = w..w + 1;
                    // Each occurrence counts; a labelled one more.
                    let s = score(p, &words).max(10);
                    out.push(Proposal {
                        value: json!(code),
                        page: p,
                        words,
                        score: s,
                        amount: None,
                    });
                }
            }
        }
        ValueKind::Text => {
            out.extend(texts_after_labels(pages, &found));
            if spec.concept == Some(Concept::Issuer) {
                out.extend(first_text_line(pages, &found));
            }
        }
    }
    out
}

/// The amounts of the pages: the runs that read as one and not as a
/// date or a percentage, the longest run where runs overlap, each cut to
/// its words with digits (so that a label just before it is before it).
/// A word whose letters are not a currency (`F20180027`) is no amount.
fn amounts(pages: &[SearchPage], index: &SearchIndex<'_>) -> Vec<(usize, Range<usize>, f64)> {
    let in_dates = dates(index);
    let mut runs: Vec<_> = index
        .value_runs()
        .iter()
        .filter(|r| r.dates.is_empty() && !r.amounts.is_empty())
        // `3 , 2014` of `August 3 , 2014` is a date's, not an amount.
        .filter(|r| {
            !in_dates
                .iter()
                .any(|(p, w, _)| *p == r.page && w.start < r.words.end && r.words.start < w.end)
        })
        .filter(|r| {
            pages[r.page].words[r.words.clone()].iter().all(|w| {
                !w.text.contains('%')
                    && (!w.text.chars().any(|c| c.is_ascii_digit())
                        || !w.text.chars().any(char::is_alphabetic)
                        || currency(&w.text).is_some())
            })
        })
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.words.len()));
    let mut kept: Vec<(usize, Range<usize>, f64)> = Vec::new();
    for run in runs {
        let overlaps = kept
            .iter()
            .any(|(p, w, _)| *p == run.page && w.start < run.words.end && run.words.start < w.end);
        if !overlaps {
            let words = &pages[run.page].words;
            let digits = |i: &usize| words[*i].text.chars().any(|c| c.is_ascii_digit());
            let start = run.words.clone().find(digits).unwrap_or(run.words.start);
            let end = run
                .words
                .clone()
                .rev()
                .find(digits)
                .map_or(run.words.end, |i| i + 1);
            kept.push((run.page, start..end, run.amounts[0]));
        }
    }
    kept.sort_by_key(|(p, w, _)| (*p, w.start));
    kept
}

/// Whether the amount's last word ends in a decimal mark and two digits.
fn has_cents(pages: &[SearchPage], page: usize, words: &Range<usize>) -> bool {
    let Some(last) = pages[page].words[words.clone()].last() else {
        return false;
    };
    let digits: String = last
        .text
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .to_owned();
    let b = digits.as_bytes();
    b.len() >= 4 && matches!(b[b.len() - 3], b'.' | b',')
}

/// The dates of the pages in a plausible range, the longest run where
/// runs overlap.
fn dates(index: &SearchIndex<'_>) -> Vec<(usize, Range<usize>, String)> {
    let mut runs: Vec<_> = index
        .value_runs()
        .iter()
        .filter(|r| {
            r.dates.first().is_some_and(|d| {
                d.get(..4)
                    .and_then(|y| y.parse::<u32>().ok())
                    .is_some_and(|y| (1990..=2100).contains(&y))
            })
        })
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.words.len()));
    let mut kept: Vec<(usize, Range<usize>, String)> = Vec::new();
    for run in runs {
        let overlaps = kept
            .iter()
            .any(|(p, w, _)| *p == run.page && w.start < run.words.end && run.words.start < w.end);
        if !overlaps {
            kept.push((run.page, run.words.clone(), run.dates[0].clone()));
        }
    }
    kept.sort_by_key(|(p, w, _)| (*p, w.start));
    kept
}

/// The IBAN that starts at word `w` and runs on over the words of its
/// line (`DE89 3704 0044 0532 0130 00`), as one string with its spaces,
/// with the word after its last: two letters and two check digits first,
/// then groups of at most four letters or digits, 15 to 34 in all.
fn grouped_iban(page: &SearchPage, w: usize) -> Option<(String, usize)> {
    let first = page.words.get(w)?;
    let head = first.text.as_bytes();
    let starts = head.len() == 4
        && head[..2].iter().all(u8::is_ascii_uppercase)
        && head[2..].iter().all(u8::is_ascii_digit);
    if !starts {
        return None;
    }
    let (mut end, mut length) = (w + 1, 4);
    while let Some(next) = page.words.get(end) {
        let group = next.text.trim_end_matches([',', '.', ';']);
        let fits = next.line == first.line
            && (1..=4).contains(&group.len())
            && group.chars().all(|c| c.is_ascii_alphanumeric())
            && length + group.len() <= 34;
        if !fits {
            break;
        }
        length += group.len();
        end += 1;
        if group.len() < 4 {
            break;
        }
    }
    (length >= 15).then(|| (join_words(page, &(w..end)), end))
}

/// A word as an identifier: with a digit and at least three letters or
/// digits, not a date, an amount with cents or a percentage; the marks
/// around it dropped (a leading `#` kept: it is printed as part of some).
fn identifier(word: &str) -> Option<String> {
    let trimmed = word
        .trim_start_matches([':', '(', '[', '"', '\''])
        .trim_end_matches([':', ';', ',', '.', ')', ']', '"', '\'']);
    // `N°562044387`, `Nr.123`: the label glued to the number.
    let trimmed = ["n°", "nº", "no.", "nr.", "no:", "nr:", "n.", "no", "nr"]
        .iter()
        .find_map(|prefix| {
            let head = trimmed.get(..prefix.len())?;
            let rest = &trimmed[prefix.len()..];
            (head.eq_ignore_ascii_case(prefix) && rest.starts_with(|c: char| c.is_ascii_digit()))
                .then_some(rest)
        })
        .unwrap_or(trimmed);
    let alnum = trimmed.chars().filter(|c| c.is_alphanumeric()).count();
    if alnum < 3 || !trimmed.chars().any(|c| c.is_ascii_digit()) || trimmed.contains('%') {
        return None;
    }
    if normalize_date(trimmed).is_some() {
        return None;
    }
    // An amount with its currency glued on (`$4.11`, `12.00EUR`) is
    // money too, not a number of something.
    let amount = if currency(trimmed).is_some() {
        trimmed.trim_matches(|c: char| !c.is_ascii_digit())
    } else {
        trimmed
    };
    let b = amount.as_bytes();
    let money = b.len() >= 4
        && matches!(b[b.len() - 3], b'.' | b',')
        && b[b.len() - 2..].iter().all(u8::is_ascii_digit)
        && amount[..b.len() - 3]
            .chars()
            .all(|c| c.is_ascii_digit() || ".,".contains(c));
    (!money).then(|| trimmed.to_owned())
}

/// A word as a currency: an ISO code as it is printed, or a sign.
fn currency(word: &str) -> Option<&'static str> {
    let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
    if let Some(code) = lexicon::CURRENCY_CODES.iter().find(|c| **c == bare) {
        return Some(code);
    }
    // A code glued to its amount: `EUR1,234.00`, `12.00EUR`.
    let letters: String = word.chars().filter(|c| c.is_ascii_uppercase()).collect();
    if letters.len() == 3
        && word.chars().any(|c| c.is_ascii_digit())
        && (word.starts_with(&letters) || word.ends_with(&letters))
        && let Some(code) = lexicon::CURRENCY_CODES.iter().find(|c| **c == letters)
    {
        return Some(code);
    }
    // A sign glued to its amount: `RM80.90`, `Rs.319`.
    for (sign, code) in [("RM", "MYR"), ("Rs.", "INR"), ("Rs", "INR")] {
        if let Some(rest) = word.strip_prefix(sign)
            && rest.starts_with(|c: char| c.is_ascii_digit())
        {
            return Some(code);
        }
    }
    lexicon::currency_of_sign(word)
}

/// The words after a label to the end of its line (or the next line,
/// when the label ends its own), as a name.
fn texts_after_labels(pages: &[SearchPage], found: &[Vec<Vec<Occurrence>>]) -> Vec<Proposal> {
    let mut out = Vec::new();
    for (p, page) in pages.iter().enumerate() {
        for (l, line) in page.lines.iter().enumerate() {
            for o in found[p][l].iter().filter(|o| !o.rival) {
                let (words, score) = if o.end < line.end {
                    (o.end..line.end, SAME_LINE + 8 * o.len as i32)
                } else if let Some(next) = page.lines.get(l + 1) {
                    (next.clone(), ABOVE + 8 * o.len as i32)
                } else {
                    continue;
                };
                let text = join_words(page, &words);
                let text = text.trim_start_matches([':', '-', ' ']).trim();
                if text.chars().filter(|c| c.is_alphabetic()).count() >= 2 {
                    out.push(Proposal {
                        value: json!(text),
                        page: p,
                        words,
                        score,
                        amount: None,
                    });
                }
            }
        }
    }
    out
}

/// The first line of the first page with a name's letters on it and no
/// label: who issued a document is printed at its top.
fn first_text_line(pages: &[SearchPage], found: &[Vec<Vec<Occurrence>>]) -> Option<Proposal> {
    let page = pages.first()?;
    for (l, line) in page.lines.iter().enumerate().take(8) {
        let text = join_words(page, line);
        let letters = text.chars().filter(|c| c.is_alphabetic()).count();
        if letters >= 3 && letters * 2 >= text.chars().count() && found[0][l].is_empty() {
            return Some(Proposal {
                value: json!(text),
                page: 0,
                words: line.clone(),
                score: 5,
                amount: None,
            });
        }
    }
    None
}

fn join_words(page: &SearchPage, words: &Range<usize>) -> String {
    page.words[words.clone()]
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
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
    }

    #[test]
    fn identifiers_are_words_with_digits_that_are_not_money_or_dates() {
        assert_eq!(identifier("42183017").as_deref(), Some("42183017"));
        assert_eq!(
            identifier("#BLR_WFLD20151000982590").as_deref(),
            Some("#BLR_WFLD20151000982590")
        );
        assert_eq!(
            identifier("INV/2023/03/0008:").as_deref(),
            Some("INV/2023/03/0008")
        );
        assert_eq!(identifier("4.11"), None);
        assert_eq!(identifier("$4.11"), None);
        assert_eq!(identifier("€4.904,94"), None);
        assert_eq!(identifier("12.00EUR"), None);
        // A number that only looks like an amount, with no currency.
        assert_eq!(identifier("RE-2017.05").as_deref(), Some("RE-2017.05"));
        assert_eq!(identifier("1.234,56"), None);
        assert_eq!(identifier("03.08.2014"), None);
        assert_eq!(identifier("19%"), None);
        assert_eq!(identifier("12"), None);
    }

    #[test]
    fn currencies_are_codes_or_signs() {
        assert_eq!(currency("EUR"), Some("EUR"));
        assert_eq!(currency("(USD)"), Some("USD"));
        assert_eq!(currency("€4.904,94"), Some("EUR"));
        assert_eq!(currency("$4.11"), Some("USD"));
        assert_eq!(currency("C$10"), Some("CAD"));
        assert_eq!(currency("RM"), Some("MYR"));
        assert_eq!(currency("12.00EUR"), Some("EUR"));
        assert_eq!(currency("EURO"), None);
        assert_eq!(currency("Total"), None);
    }
}
