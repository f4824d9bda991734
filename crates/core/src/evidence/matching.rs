//! Finding a value's places on the pages: as it is, then in normalised
//! form (amounts, dates, identifiers). See the module docs for the rules.

use std::collections::HashSet;
use std::ops::Range;

use super::locator::home_currency_place;
use super::misread::{
    date_glued_to_time, doubled_decimal_mark, five_read_as_letter, misread_date,
    misread_day_or_month, split_at_decimal_mark,
};
use super::pages::{Match, SearchPage};
use crate::normalise::{normalize_amount, normalize_date};

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

/// A run of words that reads as one amount or date.
pub(super) struct Run {
    pub page: usize,
    pub words: Range<usize>,
    /// `yyyy-mm-dd`, day first before month first.
    pub dates: Vec<String>,
    /// The dates are OCR misreads read back (see `misread`), not as printed.
    pub dates_misread: bool,
    pub amounts: Vec<f64>,
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

fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
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

/// Runs of one to three words on a line (and the lone marks between
/// them) that read as an amount or a date, the shortest first; a run over
/// more than one word only when it can be one amount or date (`EUR 1
/// 234,56`, `28 November 2022`). Every amount and date has a digit, so a
/// run without one is passed over unread. What the locator proposes
/// amounts and dates from.
pub(super) fn value_runs(pages: &[SearchPage]) -> Vec<Run> {
    // Each word without the marks around it, and whether it has a digit.
    let trimmed: Vec<Vec<(&str, bool)>> = pages
        .iter()
        .map(|page| {
            page.words
                .iter()
                .map(|w| {
                    let word = trim_punctuation(&w.text);
                    (word, word.bytes().any(|b| b.is_ascii_digit()))
                })
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for size in 1..=4 {
        for (index, (page, trimmed)) in pages.iter().zip(&trimmed).enumerate() {
            for line in &page.lines {
                for start in line.start..line.end.saturating_sub(size - 1) {
                    let end = start + size;
                    let span = &trimmed[start..end];
                    if !span.iter().any(|(_, digits)| *digits) {
                        continue;
                    }
                    // A run starts and ends on a word; a lone mark inside
                    // it (`August 3 , 2014`) is passed over.
                    if span[0].0.is_empty() || span[size - 1].0.is_empty() {
                        continue;
                    }
                    // A dash standing alone before a number separates it
                    // from its label (`Total Payable - 159.00`); a minus
                    // sign is printed on the number (`-5.00`).
                    if size > 1 && span[0].0.chars().all(|c| "-+–—".contains(c)) {
                        continue;
                    }
                    let mut kept = [""; 4];
                    let mut printed = [""; 4];
                    let mut n = 0;
                    for (at, &(word, _)) in span.iter().enumerate() {
                        if !word.is_empty() {
                            kept[n] = word;
                            printed[n] = &page.words[start + at].text;
                            n += 1;
                        }
                    }
                    let words = &kept[..n];
                    if words.len() > 3 || !one_value(words) {
                        continue;
                    }
                    // Most runs are one word: no new string for those.
                    let joined: std::borrow::Cow<'_, str> = match words {
                        [word] => (*word).into(),
                        _ => words.join(" ").into(),
                    };
                    // A date is numeric with separators (`28.11.2022`) or
                    // has a month's name: other runs are not parsed as one.
                    let may_be_date = if words.len() == 1 {
                        joined.contains(['.', '/', '-'])
                    } else {
                        words.iter().any(|w| w.chars().all(char::is_alphabetic))
                    };
                    let mut dates = if may_be_date {
                        date_readings(&joined)
                    } else {
                        Vec::new()
                    };
                    let mut dates_misread = false;
                    if dates.is_empty()
                        && page.ocr
                        && let [word] = words
                        && let Some(date) = date_glued_to_time(word)
                    {
                        dates = date_readings(date);
                    }
                    if dates.is_empty()
                        && page.ocr
                        && let [word] = words
                        && let Some(printed) =
                            misread_date(word).or_else(|| misread_day_or_month(word))
                    {
                        dates = date_readings(&printed);
                        dates_misread = true;
                    }
                    let mut amounts = amount_readings(&joined);
                    if amounts.is_empty()
                        && let Some(amount) = split_at_decimal_mark(&printed[..n], page.ocr)
                    {
                        amounts.push(amount);
                    }
                    if amounts.is_empty()
                        && page.ocr
                        && let [word] = words
                        && let Some(amount) = doubled_decimal_mark(word)
                    {
                        amounts.push(amount);
                    }
                    if amounts.is_empty()
                        && page.ocr
                        && let [word] = words
                        && let Some(amount) = five_read_as_letter(word)
                    {
                        amounts.push(amount);
                    }
                    if !dates.is_empty() || !amounts.is_empty() {
                        out.push(Run {
                            page: index,
                            words: start..end,
                            dates,
                            dates_misread,
                            amounts,
                        });
                    }
                }
            }
        }
    }
    out
}

/// Whether a run of words can be one value: one word; or words with
/// digits, after the first, that are groups of three (`1 234,56`), and
/// words without digits that are a currency or a month's name.
fn one_value(words: &[&str]) -> bool {
    if words.len() == 1 {
        return true;
    }
    let mut seen_digits = false;
    for word in words {
        if word.chars().any(|c| c.is_ascii_digit()) {
            let grouped = || {
                let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
                digits.len() == 3
                    && word[3..]
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
            };
            if seen_digits && !grouped() && !is_year_or_day(word) {
                return false;
            }
            seen_digits = true;
        } else if word.chars().count() > 10 {
            return false;
        }
    }
    true
}

fn is_year_or_day(word: &str) -> bool {
    let digits = word.trim_end_matches(|c: char| !c.is_ascii_digit());
    digits.chars().all(|c| c.is_ascii_digit()) && (digits.len() == 4 || digits.len() <= 2)
}

fn trim_punctuation(word: &str) -> &str {
    word.trim_matches(|c: char| {
        matches!(
            c,
            ',' | ';' | ':' | '(' | ')' | '[' | ']' | '{' | '}' | '"' | '\'' | '*'
        )
    })
}

/// The dates a text can be: day first and, where both could be a month,
/// month first too (`03/04/2022`).
fn date_readings(text: &str) -> Vec<String> {
    // A sentence's full stop after the year: `bis zum 04.07.2015.`
    let text = match text.strip_suffix('.') {
        Some(date)
            if date.ends_with(|c: char| c.is_ascii_digit()) && normalize_date(text).is_none() =>
        {
            date
        }
        _ => text,
    };
    let mut out: Vec<String> = normalize_date(text).into_iter().collect();
    let separator = text.chars().find(|c| "./-".contains(*c));
    if let Some(sep) = separator {
        let parts: Vec<&str> = text.split(sep).collect();
        if let [a, b, c] = parts[..]
            && a.len() <= 2
            && b.len() <= 2
            && let Some(swapped) = normalize_date(&format!("{b}{sep}{a}{sep}{c}"))
            && !out.contains(&swapped)
        {
            out.push(swapped);
        }
    }
    out
}

/// The amounts a text can be: where one mark stands before exactly three
/// digits (`1.234`, `1,234`), both as a decimal mark and as a thousands
/// separator.
fn amount_readings(text: &str) -> Vec<f64> {
    let mut out: Vec<f64> = normalize_amount(text).into_iter().collect();
    let dots = text.matches('.').count();
    let commas = text.matches(',').count();
    if dots + commas == 1 {
        let mark = if dots == 1 { '.' } else { ',' };
        let after = text.rsplit(mark).next().unwrap_or("");
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits == 3 {
            let as_decimal = text.replace(mark, ".").replace(',', "");
            let as_thousands = text.replace(mark, "");
            for reading in [as_decimal, as_thousands] {
                if let Some(n) = normalize_amount(&reading)
                    && !out.iter().any(|o| same_number(*o, n))
                {
                    out.push(n);
                }
            }
        }
    }
    out
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
