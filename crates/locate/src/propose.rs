//! Proposing a field's values from the page: every amount, date,
//! identifier or currency of the document, each scored by the label that
//! governs it (the nearest label before it on its line, else the one
//! above it), then merged by value and ranked.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use serde_json::{Value, json};

use super::country::home_country;
use super::currency::{currency, is_bare_dollar, printed_currency};
use super::dates::dates;
use super::fields::{FieldSpec, ValueKind};
use super::labels::{
    ABOVE, FoldedPages, Occurrence, SAME_LINE, fold_word, label_score, lines_with,
};
use super::lexicon::{self, Concept};
use super::party::party_names;
use super::phrases::{FieldPhrases, occurrences, total_lines};
use super::tax_line::{AmountsByValue, is_rate_of_another, is_tax_of_another};
use super::terms::is_payment_deadline;
use crate::normalise::normalize_date;
use crate::pages::SearchPage;
use crate::runs::{Run, value_runs};
use crate::shapes::{has_iban_shape, is_vat_number};

/// What a labelled total gains for being on a rounding line (`Total
/// Rounded`) or at most [`ROUNDED_WITHIN`] lines below one.
const ROUNDED: i32 = 40;
const ROUNDED_WITHIN: usize = 3;
/// What a currency gains for being on a line with a total's label.
const ON_TOTAL_LINE: i32 = 40;
/// What the currency of the country a document is from scores: more than
/// a sign printed once or twice (OCR reads stray marks as signs), less
/// than a code or a sign on every amount.
const HOME_CURRENCY: i32 = 12;
/// The most a currency of another country than the document's scores on
/// a scan, off the total's line: less than the home country's.
const FOREIGN_ON_SCAN: i32 = 10;

/// What an identifier in brackets loses (see [`propose`]).
const BRACKETED: i32 = 10;
/// What an amount on a tax line gains for being its rate of another
/// amount there (see [`is_rate_of_another`]).
const TAX_OF_BASE: i32 = 15;
/// What a tax id of a VAT number's shape gains over another number.
const VAT_SHAPED: i32 = 10;
/// What a VAT number no label governs scores: a guess below any labelled
/// tax id.
const UNLABELLED_VAT: i32 = 30;

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

/// The amounts and dates of a document, found once for all its fields.
pub(super) struct DocumentValues {
    pub amounts: Vec<(usize, Range<usize>, f64)>,
    dates: Vec<(usize, Range<usize>, String)>,
    by_value: AmountsByValue,
    /// For each line of each page with an amount with cents, the first
    /// word of the last such amount (see [`cents_after`]).
    last_with_cents: HashMap<(usize, usize), usize>,
}

impl DocumentValues {
    pub fn new(pages: &[SearchPage]) -> Self {
        let runs = value_runs(pages);
        let dates = dates(pages, &runs);
        let amounts = amounts(pages, &runs, &dates);
        let mut last_with_cents = HashMap::new();
        for (page, words, _) in amounts.iter().filter(|(p, w, _)| has_cents(pages, *p, w)) {
            let line = pages[*page].words[words.start].line;
            let last = last_with_cents.entry((*page, line)).or_insert(words.start);
            *last = (*last).max(words.start);
        }
        Self {
            by_value: AmountsByValue::new(pages, &amounts),
            amounts,
            dates,
            last_with_cents,
        }
    }
}

/// Every proposal for `spec` on the pages, scored (not yet merged).
pub(super) fn propose(
    spec: &FieldSpec,
    pages: &[SearchPage],
    values: &DocumentValues,
    folded: &FoldedPages,
) -> Vec<Proposal> {
    let found = occurrences(pages, folded, &FieldPhrases::of(spec));
    let score = |page: usize, words: &Range<usize>| label_score(pages, &found, page, words);
    let mut out = Vec::new();
    match spec.kind {
        ValueKind::Amount => {
            let is_total = spec.concept == Some(Concept::Total);
            let rounding = is_total.then(|| lines_with(folded, pages, lexicon::rounding_words()));
            for (page, words, amount) in values.amounts.iter().cloned() {
                if spec.integer && amount.fract() != 0.0 {
                    continue;
                }
                // A total of nothing is a zero line (`Discount 0.00`).
                if spec.concept == Some(Concept::Total) && amount == 0.0 {
                    continue;
                }
                let line = pages[page].words[words.start].line;
                let below_rounding = rounding.as_ref().is_some_and(|lines| {
                    (line.saturating_sub(ROUNDED_WITHIN)..=line).any(|l| lines[page][l])
                });
                let mut s = score(page, &words);
                // Rounding is applied to what is paid: a `Net Total` on or
                // just below the rounding line is the total (a net before
                // tax comes before the tax, far above any rounding).
                if s < 0 && below_rounding && says_net_total(folded, pages, page, line) {
                    s = SAME_LINE;
                }
                // `Total Qty 9 73.55`, `Total Inc. GST 9 6%: 739.78`: a
                // label governs the amount with cents after a bare whole
                // number (a count, a stray digit) on its line.
                if s >= ABOVE
                    && !has_cents(pages, page, &words)
                    && cents_after(values, page, line, words.end)
                {
                    s = 0;
                }
                // On a scan, a label above governs no bare whole number
                // (`2` of a line `Closed: 2 11-03-2018` under `TOTAL:`
                // whose amount OCR lost): a total is printed with cents.
                if is_total
                    && pages[page].ocr
                    && (ABOVE..SAME_LINE).contains(&s)
                    && !has_cents(pages, page, &words)
                {
                    s = 0;
                }
                if s == 0 {
                    // Unlabelled: an amount with cents is likelier money.
                    s = i32::from(has_cents(pages, page, &words));
                }
                // A total just below a rounding line is the rounded one,
                // what is paid; the total above it is before rounding.
                if s >= ABOVE && below_rounding {
                    s += ROUNDED;
                }
                // `USt. 19% 198,00 37,62`: of a tax line's amounts, the
                // tax is the one that is the rate of another.
                if s >= ABOVE
                    && spec.concept == Some(Concept::Tax)
                    && is_rate_of_another(&values.by_value, page, line, amount)
                {
                    s += TAX_OF_BASE;
                }
                // A tax is no total, whatever label is near it: the
                // amount that is another's tax at a rate the page prints
                // is taken for an unlabelled one.
                if s >= ABOVE && is_total && is_tax_of_another(&values.by_value, page, amount) {
                    s = 1;
                }
                out.push(Proposal {
                    value: amount_value(spec, amount),
                    page,
                    words,
                    score: s,
                    amount: Some(amount),
                });
            }
        }
        ValueKind::Date => {
            // `Invoice No. 42 of 3 May 2024`, `Rechnung Nr. 7 vom`: a date
            // after the document's number on its line is its date.
            let numbered = std::cell::OnceCell::new();
            let numbered = || numbered.get_or_init(|| document_number_labels(spec, pages, folded));
            for (page, words, date) in values.dates.iter().cloned() {
                // Any date is a better guess than none; a labelled one
                // far better. Not for a due date: it is printed with its
                // label, and the unlabelled date is the issue date.
                let mut labelled = score(page, &words);
                if labelled <= 0 && spec.concept == Some(Concept::DueDate) {
                    let ends = values.dates.iter().filter(|d| d.0 == page).map(|d| d.1.end);
                    if !is_payment_deadline(&pages[page], &folded.0[page], ends, &words) {
                        continue;
                    }
                    labelled = ABOVE;
                }
                let mut s = labelled.max(1);
                let line = pages[page].words[words.start].line;
                // Looked for only where it could matter: the labels of
                // the number are a second search of the pages.
                let after_number = || {
                    numbered()[page][line]
                        .iter()
                        .any(|o| !o.rival && o.end <= words.start)
                };
                if s < ABOVE && spec.concept == Some(Concept::IssueDate) && after_number() {
                    s = ABOVE;
                }
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
            let in_dates = &values.dates;
            // Whether the field asks the buyer's id (`buyer_vat_id`).
            let asks_buyer = says_buyer(&spec_words(spec));
            for (p, page) in pages.iter().enumerate() {
                for (w, word) in page.words.iter().enumerate() {
                    // An identifier is only ever proposed beside its label
                    // (which governs a run of words by its first): the
                    // label first, as most words have none.
                    let mut s = score(p, &(w..w + 1));
                    // A VAT number's shape says what it is, labelled or
                    // not (`TVA : FR11999999998`: `TVA` labels a tax).
                    if s == 0
                        && spec.concept == Some(Concept::TaxId)
                        && identifier(&word.text).is_some_and(|id| is_vat_number(&id))
                    {
                        s = UNLABELLED_VAT;
                    }
                    if s <= 0 {
                        continue;
                    }
                    // An IBAN is printed in groups of four: its words joined.
                    let grouped = (spec.concept == Some(Concept::Iban))
                        .then(|| grouped_iban(page, w))
                        .flatten();
                    let short = short_number(&word.text);
                    let Some((id, end)) = grouped
                        .or_else(|| series_identifier(page, w))
                        .or_else(|| Some((identifier(&word.text)?, w + 1)))
                        .or_else(|| short.clone().map(|n| (n, w + 1)))
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
                    // A number of one or two digits only right after its
                    // label on its line (`Rechnung Nr. 42`).
                    if short.is_some() && s < SAME_LINE + 8 {
                        continue;
                    }
                    // A code in brackets beside a label is a kind or a
                    // type (`Gutschrift (389) Nr. 47110818`), rarely the
                    // document's own number.
                    if word.text.starts_with('(') && word.text.ends_with(')') {
                        s -= BRACKETED;
                    }
                    // A page prints a national tax number (`Steuernummer
                    // 201/113/40209`) beside its VAT number: the number of
                    // a VAT number's shape is the likelier tax id.
                    if spec.concept == Some(Concept::TaxId) && is_vat_number(&id) {
                        s += VAT_SHAPED;
                    }
                    // `Customer VAT Number`, `N° TVA client`: the buyer's
                    // id is no answer to a seller's (or unnamed) field,
                    // and the seller's none to the buyer's.
                    if spec.concept == Some(Concept::TaxId)
                        && says_buyer(&folded.0[p][page.lines[word.line].start..w]) != asks_buyer
                    {
                        continue;
                    }
                    // An IBAN has its shape; the groups of one printed
                    // with spaces are no IBAN on their own.
                    if spec.concept == Some(Concept::Iban) && !has_iban_shape(&id) {
                        continue;
                    }
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
            let total_lines = total_lines(pages, folded);
            let home = home_country(pages, folded);
            for (p, page) in pages.iter().enumerate() {
                for (w, word) in page.words.iter().enumerate() {
                    let Some(mut code) = printed_currency(&word.text) else {
                        continue;
                    };
                    // A bare `$` is the home country's dollar.
                    if let Some(home) = home.as_ref().filter(|h| h.dollar)
                        && is_bare_dollar(&word.text)
                    {
                        code = home.currency;
                    }
                    let words = w..w + 1;
                    // Each occurrence counts; a labelled one more. A code
                    // or abbreviation in letters is rarer as OCR noise
                    // than a one-character sign, and the currency on the
                    // total's line is the total's.
                    let written = word.text.chars().any(char::is_alphabetic);
                    let mut s = score(p, &words).max(if written { 15 } else { 10 });
                    // OCR reads stray marks as signs, and a row holds
                    // more of them than a line did: on a scan, only a
                    // currency in letters takes the total's line.
                    if total_lines[p][word.line] && (written || !page.ocr) {
                        s += ON_TOTAL_LINE;
                    } else if page.ocr && home.as_ref().is_some_and(|h| h.currency != code) {
                        // On a scan, another country's code or sign off
                        // the total's line is more often a misread (`HRS`
                        // read `ARS`, a fuel's `RON95`) than its money.
                        s = s.min(FOREIGN_ON_SCAN);
                    }
                    out.push(Proposal {
                        value: json!(code),
                        page: p,
                        words,
                        score: s,
                        amount: None,
                    });
                }
            }
            // Prices at home need no currency: the home country's money.
            if let Some(home) = home {
                out.push(Proposal {
                    value: json!(home.currency),
                    page: home.page,
                    words: home.words,
                    score: HOME_CURRENCY,
                    amount: None,
                });
            }
        }
        ValueKind::Text => {
            let names = party_names(spec, pages, folded, &found);
            out.extend(names.into_iter().map(|name| Proposal {
                value: json!(name.text),
                page: name.page,
                words: name.words,
                score: name.score,
                amount: None,
            }));
        }
    }
    out
}

/// Whether `words` (folded) name the buyer: one of the buyer's one-word
/// labels (`customer`, `client`, `käufer`).
fn says_buyer(words: &[String]) -> bool {
    let buyer = lexicon::labels(Concept::Buyer);
    words
        .iter()
        .any(|w| buyer.iter().any(|label| label == w) || w == "purchaser")
}

/// A field's own words, as labels are folded.
fn spec_words(spec: &FieldSpec) -> Vec<String> {
    spec.own_label.split_whitespace().map(fold_word).collect()
}

/// Where the labels of the document's number are, for a field of another
/// concept.
fn document_number_labels(
    spec: &FieldSpec,
    pages: &[SearchPage],
    folded: &FoldedPages,
) -> Vec<Vec<Vec<Occurrence>>> {
    let number = FieldSpec {
        kind: ValueKind::Identifier,
        concept: Some(Concept::DocumentNumber),
        own_label: String::new(),
        ..spec.clone()
    };
    occurrences(pages, folded, &FieldPhrases::of(&number))
}

/// An identifier printed after its series' letter (`F 1234K20/1234/12`):
/// a lone capital, then an identifier on the same line.
fn series_identifier(page: &SearchPage, w: usize) -> Option<(String, usize)> {
    let letter = &page.words[w];
    let next = page.words.get(w + 1).filter(|n| n.line == letter.line)?;
    let series = letter.text.len() == 1 && letter.text.bytes().all(|b| b.is_ascii_uppercase());
    let id = identifier(&next.text).filter(|_| series)?;
    Some((format!("{} {id}", letter.text), w + 2))
}

/// A word that is a number of one or two digits (marks around it aside).
fn short_number(word: &str) -> Option<String> {
    let digits = word.trim_matches([':', ';', ',', '.', '(', ')', '#']);
    (!digits.is_empty() && digits.len() <= 2 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.to_owned())
}

/// An amount as the field's answer: a number (whole for an integer
/// field), or its text for a string field.
pub(super) fn amount_value(spec: &FieldSpec, amount: f64) -> Value {
    if spec.number {
        if spec.integer {
            json!(amount as i64)
        } else {
            json!(amount)
        }
    } else {
        json!(amount.to_string())
    }
}

/// Whether line `line` of page `page` says `Net Total`.
fn says_net_total(folded: &FoldedPages, pages: &[SearchPage], page: usize, line: usize) -> bool {
    let words = &folded.0[page][pages[page].lines[line].clone()];
    words.windows(2).any(|w| w[0] == "net" && w[1] == "total")
}

/// The amounts of the pages: the runs that read as one and not as a
/// date or a percentage, the longest run where runs overlap, each cut to
/// its words with digits (so that a label just before it is before it).
/// A word whose letters are not a currency (`F20180027`) is no amount.
fn amounts(
    pages: &[SearchPage],
    runs: &[Run],
    in_dates: &[(usize, Range<usize>, String)],
) -> Vec<(usize, Range<usize>, f64)> {
    let mut runs: Vec<_> = runs
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
        // `6.00 %`: a rate, its sign a word of its own.
        .filter(|r| {
            let words = &pages[r.page].words;
            words.get(r.words.end).is_none_or(|next| {
                next.line != words[r.words.start].line || !next.text.starts_with('%')
            })
        })
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.words.len()));
    let mut kept: Vec<(usize, Range<usize>, f64)> = Vec::new();
    // The kept words by (page, first word): they never overlap, so the
    // one starting last before a run ends is the only one it could meet.
    let mut kept_ends: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for run in runs {
        let overlaps = kept_ends
            .range((run.page, 0)..(run.page, run.words.end))
            .next_back()
            .is_some_and(|(_, end)| run.words.start < *end);
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
            kept_ends.insert((run.page, start), end);
            kept.push((run.page, start..end, run.amounts[0]));
        }
    }
    kept.sort_by_key(|(p, w, _)| (*p, w.start));
    kept
}

/// Whether an amount with cents follows word `after` on `line`.
fn cents_after(values: &DocumentValues, page: usize, line: usize, after: usize) -> bool {
    values
        .last_with_cents
        .get(&(page, line))
        .is_some_and(|last| *last >= after)
}

/// Whether the amount's last word ends in a decimal mark and two digits.
pub(super) fn has_cents(pages: &[SearchPage], page: usize, words: &Range<usize>) -> bool {
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

/// The IBAN that starts at word `w` and runs on over the words of its
/// line (`DE89 3704 0044 0532 0130 00`), as one string without its spaces
/// (the electronic form, as an e-invoice gives it), with the word after
/// its last: two letters and two check digits first, then groups of at
/// most four letters or digits, 15 to 34 in all.
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
    (length >= 15).then(|| {
        let groups = page.words[w..end].iter();
        let iban = groups
            .flat_map(|word| word.text.chars().filter(char::is_ascii_alphanumeric))
            .collect();
        (iban, end)
    })
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
