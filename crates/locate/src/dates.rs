//! The dates a document prints, as the locator proposes them: in the years
//! the checks find plausible, each read the way the document writes its
//! dates, and OCR's misreads read back only where no date was read as
//! printed.

use std::ops::Range;

use crate::misread::misread_year;
use crate::pages::SearchPage;
use crate::runs::Run;
use crate::shapes::plausible_years;

/// The dates of the pages in the years the checks find plausible, the
/// longest run where runs overlap. On a scan, a date OCR misread by one
/// digit (a year 2078 for 2018 here, `19/62/2018` in the runs) is read
/// back where only one reading fits, and kept only where no date was
/// read as printed.
pub(super) fn dates(pages: &[SearchPage], runs: &[Run]) -> Vec<(usize, Range<usize>, String)> {
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

/// Whether the document writes its dates month first: some numeric date
/// of its typed text can only be read so (`11/17/2017`), and none only
/// day first (`17/11/2017`). A date that reads either way is read day
/// first otherwise.
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
        let Some(separator) = text.chars().find(|c| "/.-".contains(*c)) else {
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
