//! Finding a value's places on the pages: as it is, then in normalised
//! form (amounts, dates, identifiers). See the module docs for the rules.

use std::collections::HashSet;

use sift_locate::country::home_currency_place;
use sift_locate::normalise::{normalize_amount, normalize_date};
use sift_locate::pages::{Match, SearchPage};
use sift_locate::runs::{Run, same_number, value_runs};

/// What finding values searches, built once for a document and shared
/// by all of its values: each line's text with its words' offsets, the
/// runs of words that read as an amount or a date (with their readings),
/// and each page's text folded (case and spacing aside).
pub(super) struct SearchIndex<'a> {
    pages: &'a [SearchPage],
    lines: Vec<Vec<LineText>>,
    /// Shortest first, then in document order.
    runs: Vec<Run>,
    folded: Vec<Vec<(char, usize)>>,
}

struct LineText {
    text: String,
    /// Each word's byte offset in `text`.
    starts: Vec<usize>,
    /// The index of the line's first word on its page.
    first_word: usize,
}

impl<'a> SearchIndex<'a> {
    pub fn new(pages: &'a [SearchPage]) -> Self {
        let lines = pages
            .iter()
            .map(|page| {
                page.lines
                    .iter()
                    .enumerate()
                    .map(|(l, words)| {
                        let mut starts = Vec::with_capacity(words.len());
                        let mut offset = 0;
                        for word in &page.words[words.clone()] {
                            starts.push(offset);
                            offset += word.text.len() + 1;
                        }
                        LineText {
                            text: page.line_text(l),
                            starts,
                            first_word: words.start,
                        }
                    })
                    .collect()
            })
            .collect();
        let folded = pages
            .iter()
            .map(|page| {
                let mut stream = Vec::new();
                for (w, word) in page.words.iter().enumerate() {
                    stream.extend(fold(&word.text).into_iter().map(|c| (c, w)));
                }
                stream
            })
            .collect();
        Self {
            pages,
            lines,
            runs: value_runs(pages),
            folded,
        }
    }
}

/// Every place `text` occurs, in document order; see the module docs.
pub(super) fn find(index: &SearchIndex<'_>, text: &str, numeric: bool) -> Vec<Match> {
    let mut found = Vec::new();
    for (page, lines) in index.lines.iter().enumerate() {
        for line in lines {
            exact_in_line(line, page, text, numeric, &mut found);
        }
    }
    let date = (!numeric).then(|| normalize_date(text)).flatten();
    if let Some(date) = &date {
        take_runs(index, &mut found, |run| run.dates.contains(date));
    } else if let Some(amount) = normalize_amount(text) {
        take_runs(index, &mut found, |run| {
            run.amounts.iter().any(|a| same_number(*a, amount))
        });
    }
    // A string that also reads as an amount (`DE89370400440532013000`, a
    // code's letters then digits) may be printed as itself, in groups.
    if date.is_none() && !numeric && found.is_empty() {
        for (page, stream) in index.folded.iter().enumerate() {
            folded_in_page(stream, page, text, &mut found);
        }
        if found.is_empty() {
            symbol_of_currency(index.pages, text, &mut found);
        }
        // A currency the page does not print: where the page says it is
        // from the country that pays in it.
        if found.is_empty()
            && let Some((page, words)) = home_currency_place(index.pages, text)
        {
            found.push(Match {
                page,
                words,
                exact: false,
                label: 0,
            });
        }
    }
    found.sort_by_key(|m| (m.page, m.words.start));
    found.dedup_by(|a, b| a.page == b.page && a.words == b.words);
    found
}

/// The value as it is, between word boundaries (for a number, not inside
/// a longer number: `12` is not in `12.50`).
fn exact_in_line(line: &LineText, page: usize, text: &str, numeric: bool, found: &mut Vec<Match>) {
    let line_text = &line.text;
    let starts = &line.starts;
    let chars_at = |at: usize| line_text[..at].chars().rev();
    for (at, _) in line_text.match_indices(text) {
        let end = at + text.len();
        let mut before = chars_at(at);
        let mut after = line_text[end..].chars();
        let (b1, b2) = (before.next(), before.next());
        let (a1, a2) = (after.next(), after.next());
        let joined = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let in_number = |mark: Option<char>, beyond: Option<char>| {
            numeric
                && mark.is_some_and(|c| c == '.' || c == ',')
                && beyond.is_some_and(|c| c.is_ascii_digit())
        };
        if joined(b1) || joined(a1) || in_number(b1, b2) || in_number(a1, a2) {
            continue;
        }
        // The last word starting at or before the match, and the last
        // starting inside it. `starts` is ascending, so a binary search:
        // scanning it for each match was quadratic on one long line of
        // the value repeated (issue 40).
        let first = starts.partition_point(|s| *s <= at).saturating_sub(1);
        let last = starts
            .partition_point(|s| *s < end)
            .checked_sub(1)
            .unwrap_or(first);
        found.push(Match {
            page,
            words: line.first_word + first..line.first_word + last + 1,
            exact: true,
            label: 0,
        });
    }
}

/// The runs that `reads_as` accepts and no earlier match (a shorter run,
/// or the exact value) overlaps.
fn take_runs(index: &SearchIndex<'_>, found: &mut Vec<Match>, reads_as: impl Fn(&Run) -> bool) {
    // The words earlier matches hold, by page: two places overlap when
    // they share a word (neither is empty). A set, because comparing each
    // run with every match was quadratic on a page of the same amount
    // over and over (issue 40). Exact matches do not overlap each other
    // and a run is at most four words, so the set stays about the size of
    // the pages' words.
    let mut held: HashSet<(usize, usize)> = found
        .iter()
        .flat_map(|m| m.words.clone().map(|w| (m.page, w)))
        .collect();
    for run in index.runs.iter().filter(|r| reads_as(r)) {
        let taken = run.words.clone().any(|w| held.contains(&(run.page, w)));
        if !taken {
            held.extend(run.words.clone().map(|w| (run.page, w)));
            found.push(Match {
                page: run.page,
                words: run.words.clone(),
                exact: false,
                label: 0,
            });
        }
    }
}

/// The value with case and spacing ignored, anywhere on the page (also
/// across lines), not starting or ending inside a word's letters or
/// digits.
fn folded_in_page(stream: &[(char, usize)], index: usize, text: &str, found: &mut Vec<Match>) {
    let needle: Vec<char> = fold(text);
    if needle.is_empty() {
        return;
    }
    // Knuth–Morris–Pratt: every occurrence, overlapping ones too, in
    // order, in time linear in the page and the value. Comparing the value
    // at every place was their product, minutes for a long value on a
    // page of the same letter over and over (issue 40).
    let border = borders(&needle);
    let mut matched = 0;
    for (i, (c, _)) in stream.iter().enumerate() {
        while matched > 0 && needle[matched] != *c {
            matched = border[matched - 1];
        }
        if needle[matched] == *c {
            matched += 1;
        }
        if matched < needle.len() {
            continue;
        }
        matched = border[matched - 1];
        let end = i + 1;
        let at = end - needle.len();
        let inside = |outer: Option<&(char, usize)>, inner: &(char, usize)| {
            outer.is_some_and(|(c, w)| {
                *w == inner.1 && c.is_alphanumeric() && inner.0.is_alphanumeric()
            })
        };
        if inside(at.checked_sub(1).map(|i| &stream[i]), &stream[at])
            || inside(stream.get(end), &stream[end - 1])
        {
            continue;
        }
        found.push(Match {
            page: index,
            words: stream[at].1..stream[end - 1].1 + 1,
            exact: false,
            label: 0,
        });
    }
}

/// For each prefix of `needle`, the length of its longest proper prefix
/// that is also its suffix (Knuth–Morris–Pratt's failure table).
fn borders(needle: &[char]) -> Vec<usize> {
    let mut border = vec![0; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = border[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        border[i] = k;
    }
    border
}

/// The signs a currency's ISO code is printed as (`$4.11` for `USD`).
/// A bare `$` counts for the US dollar only; other dollars need their
/// prefix (`C$`, `A$`).
fn currency_signs(code: &str) -> &'static [&'static str] {
    match code.to_ascii_uppercase().as_str() {
        "USD" => &["US$", "$"],
        "EUR" => &["€"],
        "GBP" => &["£"],
        "INR" => &["₹", "Rs"],
        "JPY" => &["¥", "円"],
        "CNY" => &["¥", "元"],
        "KRW" => &["₩"],
        "RUB" => &["₽"],
        "PLN" => &["zł"],
        "TRY" => &["₺"],
        "ILS" => &["₪"],
        "NGN" => &["₦"],
        "UAH" => &["₴"],
        "PHP" => &["₱"],
        "VND" => &["₫"],
        "THB" => &["฿"],
        "CAD" => &["C$", "CA$"],
        "AUD" => &["A$", "AU$"],
        "NZD" => &["NZ$"],
        "SGD" => &["S$"],
        "HKD" => &["HK$"],
        "MXN" => &["MX$"],
        "MYR" => &["RM"],
        "IDR" => &["Rp"],
        "BRL" => &["R$"],
        _ => &[],
    }
}

/// A currency code found as its sign: each word that holds the sign (as
/// `$4.11` holds `$`), its first sign that occurs.
fn symbol_of_currency(pages: &[SearchPage], code: &str, found: &mut Vec<Match>) {
    for sign in currency_signs(code) {
        for (index, page) in pages.iter().enumerate() {
            for (w, word) in page.words.iter().enumerate() {
                // `C$` is not a bare `$`: the sign starts the word or
                // follows what is not a letter.
                // `Rs` is a sign, not the end of `MRs` or the start of `Rsvp`.
                let holds = word.text.match_indices(sign).any(|(at, _)| {
                    let letter = |c: Option<char>| c.is_some_and(char::is_alphabetic);
                    !letter(word.text[..at].chars().next_back())
                        && !letter(word.text[at + sign.len()..].chars().next())
                });
                if holds {
                    found.push(Match {
                        page: index,
                        words: w..w + 1,
                        exact: false,
                        label: 0,
                    });
                }
            }
        }
        if !found.is_empty() {
            return;
        }
    }
}

fn fold(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}
