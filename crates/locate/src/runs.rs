//! The runs of words that read as an amount or a date, with their
//! readings: what the locator proposes amounts and dates from, and what
//! evidence finds a value's normalised form among.

use std::ops::Range;

use crate::misread::{
    date_glued_to_time, doubled_decimal_mark, five_read_as_letter, misread_date,
    misread_day_or_month, split_at_decimal_mark,
};
use crate::normalise::{date_parts, month_named, normalize_amount, normalize_date, three_parts};
use crate::pages::SearchPage;

/// A run of words that reads as one amount or date.
#[derive(Debug)]
pub struct Run {
    /// Index into the pages searched.
    pub page: usize,
    /// The run's words on its page.
    pub words: Range<usize>,
    /// `yyyy-mm-dd`, day first before month first.
    pub dates: Vec<String>,
    /// The dates are OCR misreads read back (see `misread`), not as printed.
    pub dates_misread: bool,
    /// The amounts it can be (`1.234`: 1.234 and 1234).
    pub amounts: Vec<f64>,
}

/// Runs of one to three words on a line (and the lone marks between
/// them) that read as an amount or a date, the shortest first; a run over
/// more than one word only when it can be one amount or date (`EUR 1
/// 234,56`, `28 November 2022`). Every amount and date has a digit, so a
/// run without one is passed over unread. What the locator proposes
/// amounts and dates from.
pub fn value_runs(pages: &[SearchPage]) -> Vec<Run> {
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
    let mut several = String::new();
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
                    if size > 1
                        && span[0]
                            .0
                            .chars()
                            .all(|c| matches!(c, '-' | '+' | '–' | '—'))
                    {
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
                    // Most runs are one word: no new string for those;
                    // the others are joined in one string kept for all.
                    let joined: &str = match words {
                        [word] => word,
                        _ => {
                            several.clear();
                            for (at, word) in words.iter().enumerate() {
                                if at > 0 {
                                    several.push(' ');
                                }
                                several.push_str(word);
                            }
                            &several
                        }
                    };
                    // A date is numeric with separators (`28.11.2022`) or
                    // has a month's name: other runs are not parsed as one.
                    let may_be_date = if words.len() == 1 {
                        may_be_one_date(joined)
                    } else {
                        words.iter().any(|w| w.chars().all(char::is_alphabetic))
                            && names_a_month(joined)
                    };
                    let mut dates = if may_be_date {
                        date_readings(joined)
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
                    let mut amounts = amount_readings(joined);
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

/// Whether one word may read as a date: it has a separator and, with
/// letters, a month's name (`3-Aug-2014`), else two separators, as a date
/// in numbers has (`28.11.2022`). An amount (`1.234,56`, `12.50`) has
/// neither, and most words with a digit are amounts: they are not parsed
/// as dates.
fn may_be_one_date(word: &str) -> bool {
    let separators = word
        .bytes()
        .filter(|b| matches!(b, b'.' | b'/' | b'-'))
        .count();
    if word.chars().any(char::is_alphabetic) {
        separators > 0 && names_a_month(word)
    } else {
        separators >= 2
    }
}

/// Whether a month's name is one of the text's parts ([`date_parts`]):
/// without one, a text with letters reads as no date.
fn names_a_month(text: &str) -> bool {
    date_parts(text)
        // Every month's name begins with a letter (a test holds it): the
        // parts in digits, most of them, are not looked up.
        .any(|part| part.starts_with(char::is_alphabetic) && month_named(part).is_some())
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
                let digits = word.bytes().take_while(u8::is_ascii_digit).count();
                digits == 3
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
    if let Some(sep) = text.chars().find(|c| matches!(c, '.' | '/' | '-'))
        && let Some([a, b, c]) = three_parts(text, sep)
        && a.len() <= 2
        && b.len() <= 2
        && let Some(swapped) = normalize_date(&format!("{b}{sep}{a}{sep}{c}"))
        && !out.contains(&swapped)
    {
        out.push(swapped);
    }
    out
}

/// The amounts a text can be: where one mark stands before exactly three
/// digits (`1.234`, `1,234`), both as a decimal mark and as a thousands
/// separator.
fn amount_readings(text: &str) -> Vec<f64> {
    let mut out: Vec<f64> = normalize_amount(text).into_iter().collect();
    let dots = text.bytes().filter(|b| *b == b'.').count();
    let commas = text.bytes().filter(|b| *b == b',').count();
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

/// Two readings of one number (within float error).
pub fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_passed_over_as_no_date_has_no_date_reading() {
        // Every word of up to five parts: whatever the filter passes over
        // must have no reading as a date, unless it has no separator at
        // all (`3,03,Aug` reads as one, but a date in one word is written
        // with one: such a word was never read as a date).
        let parts = [
            "3", "03", "12", "31", "2024", "24", "Aug", "Mai", "août", "nr", ".", "/", "-", ",",
            " ",
        ];
        let mut words = vec![String::new()];
        let mut checked = 0;
        for _ in 0..5 {
            words = words
                .iter()
                .flat_map(|w| parts.iter().map(move |p| format!("{w}{p}")))
                .collect();
            for word in &words {
                // A run of several words is read only with a month's name.
                if !names_a_month(word) && word.chars().any(char::is_alphabetic) {
                    assert_eq!(date_readings(word), Vec::<String>::new(), "{word}");
                }
                if word.contains(' ') {
                    continue;
                }
                if !may_be_one_date(word) && word.contains(['.', '/', '-']) {
                    assert_eq!(date_readings(word), Vec::<String>::new(), "{word}");
                    checked += 1;
                }
            }
        }
        assert!(
            crate::normalise::months()
                .iter()
                .all(|(name, _)| name.starts_with(char::is_alphabetic))
        );
        // The dates themselves are read.
        assert!(may_be_one_date("28.11.2022") && may_be_one_date("3-Aug-2024"));
        assert!(may_be_one_date("3,Aug.2024"));
        assert!(!may_be_one_date("1.234,56") && !may_be_one_date("12.50"));
        assert!(checked > 10_000, "{checked}");
    }
}
