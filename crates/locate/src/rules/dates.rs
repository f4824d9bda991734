//! The dates' rules. The dates a document prints, as the locator proposes
//! them: in the years the checks find plausible, each read the way the
//! document writes its dates, and OCR's misreads read back only where no
//! date was read as printed. Then each scored: any date is a better guess
//! than none, a date after the document's number is its date (strongly
//! where a word of "dated" links the two: `Rechnung Nr. 7 vom`, the
//! language files' `dated`), and a due date is proposed only where its
//! label governs it or payment terms in words give it.
//!
//! Payment terms in words: `Zahlbar innerhalb 30 Tagen netto bis
//! 04.07.2013`, `Bitte überweisen Sie bis zum 04.07.2015`, `Please pay
//! by 3 May 2024`. The date after a word of paying and a word of "by" is
//! when payment is due, though no due date's label governs it (`bis` on
//! its own is a period's end, a rival of every date's label). The words of
//! paying and of "by" are the language files' `pay` and `by`.

use std::ops::Range;

use crate::labels::{ABOVE, Occurrence, SAME_LINE, label_score};
use crate::languages::lexicon;
use crate::lexicon::Concept;
use crate::misread::misread_year;
use crate::pages::SearchPage;
use crate::runs::Run;
use crate::shapes::plausible_years;

/// The dates of the pages in the years the checks find plausible (1980 to next year), the longest run where runs overlap; a scan's misread read back only where no date was read as printed.
///
/// On a scan, a date OCR misread by one digit (a year 2078 for 2018 here,
/// `19/62/2018` in the runs) is read back where only one reading fits.
/// Measured: LOCATOR_VERSION 5, the plausible years (tuning and held-out
/// receipts, with that version's other rules); LOCATOR_VERSION 12, a
/// misread read back only where none was read as printed (tuning receipts'
/// dates 344 → 348, held-out 195 → 196)
/// Test: a_date_read_as_printed_wins_over_a_misread_one_read_back
pub(crate) fn dates_in_plausible_years(
    pages: &[SearchPage],
    runs: &[Run],
) -> Vec<(usize, Range<usize>, String)> {
    let years = plausible_years();
    let month_first = month_first(pages, runs);
    let mut runs: Vec<(&Run, String, bool)> = runs
        .iter()
        .filter_map(|r| {
            // A date both ways round (`11/03/2017`) the way the document
            // writes the dates that can be read only one way.
            let reading = if month_first && r.dates.len() == 2 {
                1
            } else {
                0
            };
            let date = r.dates.get(reading)?;
            let year = date.get(..4).and_then(|y| y.parse::<i32>().ok())?;
            if years.contains(&year) {
                Some((r, date.clone(), r.dates_misread))
            } else if pages[r.page].ocr {
                misread_year(date, &years).map(|read| (r, read, true))
            } else {
                None
            }
        })
        .collect();
    // A misread read back is a guess: where OCR read a date as printed
    // (a receipt prints its date twice, one reading garbled), the guesses
    // are not proposed.
    if runs.iter().any(|(_, _, misread)| !misread) {
        runs.retain(|(_, _, misread)| !misread);
    }
    runs.sort_by_key(|(r, _, _)| std::cmp::Reverse(r.words.len()));
    let mut kept: Vec<(usize, Range<usize>, String)> = Vec::new();
    for (run, date, _) in runs {
        let overlaps = kept
            .iter()
            .any(|(p, w, _)| *p == run.page && w.start < run.words.end && run.words.start < w.end);
        if !overlaps {
            kept.push((run.page, run.words.clone(), date));
        }
    }
    kept.sort_by_key(|(p, w, _)| (*p, w.start));
    kept
}

/// A date either way round is read month first where the typed text has a date only month first can read, and none only day first.
///
/// Whether the document writes its dates month first: some numeric date
/// of its typed text can only be read so (`11/17/2017`), and none only
/// day first (`17/11/2017`). A date that reads either way is read day
/// first otherwise.
/// Measured: LOCATOR_VERSION 9, pages +1, tuning and held-out receipts 0
/// Test: a_date_either_way_round_is_read_the_way_the_documents_other_dates_are
fn month_first(pages: &[SearchPage], runs: &[Run]) -> bool {
    let (mut month, mut day) = (0, 0);
    // Typed text only: OCR's misread digits (`03/25/2018`) say nothing.
    let typed = |r: &&Run| !pages[r.page].ocr;
    for run in runs
        .iter()
        .filter(typed)
        .filter(|r| r.dates.len() == 1 && r.words.len() == 1)
    {
        let text = &pages[run.page].words[run.words.start].text;
        let text = text.trim_matches(|c: char| !c.is_ascii_digit());
        let Some(separator) = text.chars().find(|c| matches!(c, '/' | '.' | '-')) else {
            continue;
        };
        let parts: Vec<u32> = text
            .split(separator)
            .filter_map(|p| p.parse().ok())
            .collect();
        match parts[..] {
            [a, b, _] if a <= 12 && (13..=31).contains(&b) => month += 1,
            [a, b, _] if (13..=31).contains(&a) && b <= 12 => day += 1,
            _ => {}
        }
    }
    month > 0 && day == 0
}

/// A due date is proposed only where a due date's label governs it, or payment terms in words give it (scored as labelled above).
///
/// `labelled` is the date's label score; `None`: not proposed. The
/// unlabelled date is the issue date, a wrong value where none is right.
/// `dates_before` are the ends of the page's dates.
/// Measured: LOCATOR_VERSION 10, pages' payment fields (due date 10 right
/// and 12 wrong → 12 and none wrong); the terms in words, pages' starter
/// schema (with a date before a full stop: 303 → 310 of 395, due date 19 of 22)
/// Test: payment_terms_in_words_give_the_due_date_and_not_the_discounts
pub(crate) fn due_date_needs_its_label_or_terms(
    concept: Option<Concept>,
    labelled: i32,
    page: &SearchPage,
    folded: &[&str],
    dates_before: impl Iterator<Item = usize>,
    date: &Range<usize>,
) -> Option<i32> {
    if labelled > 0 || concept != Some(Concept::DueDate) {
        return Some(labelled);
    }
    is_payment_deadline(page, folded, dates_before, date).then_some(ABOVE)
}

/// Any date scores at least 1, one a rival's label governs too: a better guess than none.
///
/// Measured: not measured
/// Test: any_date_is_a_better_guess_than_none
pub(crate) fn any_date_beats_none(labelled: i32) -> i32 {
    labelled.max(1)
}

/// A date after the document's number on its line is its issue date, scored as labelled above (`Invoice No. 42 of 3 May 2024`).
///
/// `after_number` is asked only where it could matter: the number's
/// labels are a second search of the pages.
/// Measured: LOCATOR_VERSION 9, with that version's second step (corpus
/// +6 / −1, pages +7, tuning receipts +10 / −2, held-out +6 / −2)
/// Test: the_date_after_the_documents_number_is_its_date_and_a_deadline_is_not
pub(crate) fn date_after_the_number_is_the_issue_date(
    concept: Option<Concept>,
    s: i32,
    after_number: impl FnOnce() -> bool,
) -> i32 {
    if s < ABOVE && concept == Some(Concept::IssueDate) && after_number() {
        ABOVE
    } else {
        s
    }
}

/// What a date linked to the document's number scores at least: as if a
/// label of two words governed it on its line.
const LINKED_TO_THE_NUMBER: i32 = SAME_LINE + 16;

/// A date linked to the document's number on its line by the language's word (`Rechnung Nr. 7 vom 3.5.2024`, `Facture n° 7 du`) is its issue date, scored as a two-word label.
///
/// It outranks a date another word of "dated" labels alone (`Version 2.1
/// vom 24.03.2020`, a version's). `linked` is asked only for an issue
/// date ([`linked_to_the_number`]).
/// Measured: LOCATOR_VERSION 15, e-invoice line items' tune split
/// (invoice date 18 → 25 of 26), pages' four fields and starter schema
/// (date 39 → 41 of 42 each); none lost on the corpus, i2d, payment
/// fields, einv
/// Test: a_date_linked_to_the_invoices_number_outranks_a_versions_date
pub(crate) fn date_linked_to_the_number_is_the_issue_date(
    concept: Option<Concept>,
    s: i32,
    linked: impl FnOnce() -> bool,
) -> i32 {
    if concept == Some(Concept::IssueDate) && linked() {
        s.max(LINKED_TO_THE_NUMBER)
    } else {
        s
    }
}

/// Whether the date at `date` on page `page` follows the document's
/// number, linked by a word of the language files' `dated`: that word
/// right before the date (or ending the line before, the date first on
/// its line), and right before it the number, a word with a digit that
/// the number's label governs on its line (`numbered`: where the
/// number's labels and rivals are, so `Bestellung Nr. 5 vom` is not).
pub(crate) fn linked_to_the_number(
    pages: &[SearchPage],
    folded: &[&str],
    numbered: &[Vec<Vec<Occurrence>>],
    page: usize,
    date: &Range<usize>,
) -> bool {
    let search = &pages[page];
    let line = search.words[date.start].line;
    let Some(link) = date.start.checked_sub(1) else {
        return false;
    };
    let link_line = search.words[link].line;
    let first_on_line = search.lines[line].start == date.start;
    if !(link_line == line || first_on_line && link_line + 1 == line)
        || !lexicon().dated.contains(&folded[link])
    {
        return false;
    }
    let Some(number) = link.checked_sub(1) else {
        return false;
    };
    search.words[number].line == link_line
        && search.words[number]
            .text
            .bytes()
            .any(|b| b.is_ascii_digit())
        && label_score(pages, numbered, page, &(number..link)) >= SAME_LINE
}

/// Whether the date at `date` on `page` is a payment's deadline: a word
/// of "by" right before it, and a word of paying between it and the
/// previous date on its line (`… netto bis 04.07.2013, 3% Skonto
/// innerhalb 10 Tagen bis 15.06.2013`: the discount's date is not).
fn is_payment_deadline(
    page: &SearchPage,
    folded: &[&str],
    dates_before: impl Iterator<Item = usize>,
    date: &Range<usize>,
) -> bool {
    let line = &page.lines[page.words[date.start].line];
    let since = dates_before
        .filter(|end| *end > line.start && *end <= date.start)
        .max()
        .unwrap_or(line.start);
    let words = &folded[since..date.start];
    let by = words.last().is_some_and(|w| lexicon().by.contains(w));
    by && words.iter().any(|w| lexicon().pay.contains(w))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::locate_fields;
    use crate::tests::text_document;

    #[test]
    fn any_date_is_a_better_guess_than_none() {
        // Only a rival's label (a delivery's) governs the date: it is still
        // a guess for the invoice's date, where nothing better is printed.
        let schema = json!({"type": "object", "properties": {
            "date": {"type": "string", "description": "The invoice's date"}
        }});
        let located = locate_fields(&text_document("Delivery 03.05.2024"), &schema);
        assert_eq!(located[0].best(), Some(&json!("2024-05-03")));
    }

    #[test]
    fn a_date_linked_to_the_invoices_number_outranks_a_versions_date() {
        let schema = json!({"type": "object", "properties": {
            "date": {"type": "string", "description": "The invoice's date"}
        }});
        let best = |text: &str| {
            locate_fields(&text_document(text), &schema)[0]
                .best()
                .cloned()
        };
        // A format's version has its date too, printed first; an order's
        // number is no invoice's, and its date no invoice date.
        let german = "Format-Version: 3.1 vom 02.01.2021\n\
                      Gemäß Bestellung Nr. 77-1 vom 01.07.2022\n\
                      Rechnung Nr. 8812 vom 14.07.2022";
        assert_eq!(best(german), Some(json!("2022-07-14")));
        // The linking word ends a line, the date starts the next.
        let french = "Schéma version 2 du 01/02/2020\nFacture n° 31 du\n09/03/2021";
        assert_eq!(best(french), Some(json!("2021-03-09")));
        let english = "Release 4 dated 2 May 2020\nInvoice No. 5521 dated 6 June 2021";
        assert_eq!(best(english), Some(json!("2021-06-06")));
    }
}
