//! Where a line item's numbers are printed on the page: its visual rows,
//! each row's value runs, and a line's amount set a row lower than its
//! quantity and price (a table whose cells are two lines high, the amount
//! on the cell's second line).

use std::collections::{BTreeMap, HashSet};

use sift_locate::pages::SearchPage;
use sift_locate::reads_as_an_amount;
use sift_locate::runs::Run;

/// How far a printed number may be from the worked-out one: half a cent,
/// so a unit price printed to two decimals matches its exact quotient.
pub(super) const PRINTED_ROUNDING: f64 = 0.005;

/// Whether `quantity × unit price` makes `amount`, beyond a printed
/// price's rounding (to the cent, so more for a larger quantity).
pub(super) fn multiplies_out(quantity: f64, unit_price: f64, amount: f64) -> bool {
    (quantity * unit_price - amount).abs() <= PRINTED_ROUNDING * (2.0 + quantity.abs())
}

/// A number as the answer holds it: near to float error.
fn exact(x: f64) -> f64 {
    1e-9 * x.abs().max(1.0)
}

/// Two numbers equal to float error.
pub(super) fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= exact(a)
}

/// A number printed in a run: which run, and the number as printed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Printed {
    pub run: usize,
    pub value: f64,
}

/// A line's three numbers as one place prints them, the quantity and
/// the unit price on one row (`left` the one further left) and the
/// amount on that row or the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PrintedLine {
    pub left: Printed,
    pub right: Printed,
    pub amount: Printed,
}

/// A row (page, row) a description is printed on or beside, and the
/// word its words begin at there (`None`: a row beside them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Described {
    pub row: (usize, usize),
    pub place: Option<usize>,
}

/// The page's rows and the runs each holds.
pub(super) struct PrintedRows<'a> {
    pub(super) pages: &'a [SearchPage],
    pub(super) runs: &'a [Run],
    /// Each row's runs (indices into `runs`), by (page, row).
    by_row: BTreeMap<(usize, usize), Vec<usize>>,
}

impl<'a> PrintedRows<'a> {
    pub(super) fn new(pages: &'a [SearchPage], runs: &'a [Run]) -> Self {
        let mut by_row: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
        for (index, run) in runs.iter().enumerate() {
            by_row.entry(row_of(pages, run)).or_default().push(index);
        }
        Self {
            pages,
            runs,
            by_row,
        }
    }

    /// The row's runs.
    fn row(&self, (page, row): (usize, usize)) -> &[usize] {
        self.by_row.get(&(page, row)).map_or(&[], Vec::as_slice)
    }

    /// Runs in the row, and (when `next`) in the row below it too.
    fn runs_of(&self, row: (usize, usize), next: bool) -> impl Iterator<Item = usize> + '_ {
        let below = if next {
            self.row((row.0, row.1 + 1))
        } else {
            &[]
        };
        self.row(row).iter().chain(below).copied()
    }

    fn overlap(&self, a: usize, b: usize) -> bool {
        let (a, b) = (&self.runs[a], &self.runs[b]);
        a.page == b.page && a.words.start < b.words.end && b.words.start < a.words.end
    }

    /// The run's number near `target`, if it prints one.
    fn near(&self, run: usize, target: f64, tolerance: f64) -> Option<f64> {
        self.runs[run]
            .amounts
            .iter()
            .copied()
            .find(|x| (x - target).abs() <= tolerance)
    }

    /// Where a row prints the two `known` numbers exactly, in runs of
    /// words that do not overlap, and beside them a third run printing a
    /// number within `tolerance` of `third` (on their row, or when `next`
    /// on the row below): the first such row's runs and the third's number.
    fn placed(
        &self,
        known: [f64; 2],
        third: f64,
        tolerance: f64,
        next: bool,
    ) -> Option<(usize, usize, Printed)> {
        self.by_row.keys().find_map(|&row| {
            self.pair(self.row(row), known).find_map(|(first, second)| {
                self.runs_of(row, next).find_map(|r| {
                    let value = (!self.overlap(r, first) && !self.overlap(r, second))
                        .then(|| self.near(r, third, tolerance))??;
                    Some((first, second, Printed { run: r, value }))
                })
            })
        })
    }

    /// The number near `worked_out` printed where the two `known` numbers
    /// are printed: on their row, else (`amount`: the worked-out number
    /// is the line's amount) on the row below theirs.
    pub(super) fn reading(&self, known: [f64; 2], worked_out: f64, amount: bool) -> Option<f64> {
        let tolerance = PRINTED_ROUNDING.max(exact(worked_out));
        self.placed(known, worked_out, tolerance, false)
            .or_else(|| amount.then(|| self.placed(known, worked_out, tolerance, true))?)
            .map(|(_, _, printed)| printed.value)
    }

    /// Two runs of `runs` that do not overlap, printing `known` exactly.
    fn pair<'r>(
        &'r self,
        runs: &'r [usize],
        known: [f64; 2],
    ) -> impl Iterator<Item = (usize, usize)> + 'r {
        runs.iter()
            .filter(move |&&r| self.near(r, known[0], exact(known[0])).is_some())
            .flat_map(move |&first| {
                runs.iter()
                    .filter(move |&&r| {
                        !self.overlap(r, first) && self.near(r, known[1], exact(known[1])).is_some()
                    })
                    .map(move |&second| (first, second))
            })
    }

    /// Where the page prints a quantity, unit price and amount exactly as
    /// given (the amount on their row or the row below), if anywhere.
    pub(super) fn printed_as_given(&self, [q, p, a]: [f64; 3]) -> Option<PrintedLine> {
        let (quantity, price, amount) = self.placed([q, p], a, exact(a), true)?;
        Some(self.line(
            Printed {
                run: quantity,
                value: q,
            },
            Printed {
                run: price,
                value: p,
            },
            amount,
        ))
    }

    /// A line of two factors and an amount, the factors in the order the
    /// row prints them.
    fn line(&self, a: Printed, b: Printed, amount: Printed) -> PrintedLine {
        let (left, right) = if self.runs[b.run].words.start < self.runs[a.run].words.start {
            (b, a)
        } else {
            (a, b)
        };
        PrintedLine {
            left,
            right,
            amount,
        }
    }

    /// Every way the row that prints `description` prints a quantity,
    /// unit price and amount that multiply out (the amount on that row or
    /// the next), the numbers inside the printed description itself
    /// (`Karton 3 x 20`) left out. Only when that row prints no number of
    /// its own, the rows just above and below it, both (a line's numbers
    /// may sit a row from its words); a row that prints numbers is the
    /// line's own, and a line with a discount, whose numbers there do not
    /// multiply out, does not take the next line's. Empty when no row
    /// prints the description's words.
    pub(super) fn lines_near(&self, description: &str) -> Vec<PrintedLine> {
        let described = described_rows(self.pages, description);
        let inside: HashSet<(usize, usize)> = described
            .iter()
            .flat_map(|(page, words)| words.clone().map(move |w| (*page, w)))
            .collect();
        let rows: Vec<(usize, usize)> = described
            .iter()
            .map(|(page, words)| (*page, self.pages[*page].words[words.start].line))
            .collect();
        let usable = |run: &usize| {
            let r = &self.runs[*run];
            !r.words.clone().any(|w| inside.contains(&(r.page, w)))
                && reads_as_an_amount(self.pages, r)
        };
        if rows.iter().any(|&row| self.row(row).iter().any(usable)) {
            return self.lines_on(&rows, usable);
        }
        let around: Vec<(usize, usize)> = rows
            .iter()
            .flat_map(|&(page, row)| {
                [row.checked_sub(1), Some(row + 1)]
                    .into_iter()
                    .flatten()
                    .map(move |r| (page, r))
            })
            .filter(|row| !rows.contains(row))
            .collect();
        self.lines_on(&around, usable)
    }

    /// Every row that prints one line as a table prints it: one quantity,
    /// unit price and amount that multiply out, the amount printed as
    /// money (two decimals, not zero) right of the two factors or on the
    /// row below, and one factor with decimals (the price: `Karton 3 x 20`
    /// is a description's, not a line's numbers). A row with two different readings is none (which one is
    /// the line is not the page's to say), and so is a percentage or a code.
    pub(super) fn table_rows(&self) -> Vec<((usize, usize), PrintedLine)> {
        // `Artikelrabatt 1: 3,00%`: a number before a colon labels what
        // follows; it is no line's quantity.
        let usable = |run: &usize| {
            let r = &self.runs[*run];
            reads_as_an_amount(self.pages, r)
                && !self.pages[r.page].words[r.words.end - 1]
                    .text
                    .ends_with(':')
        };
        self.by_row
            .keys()
            .filter_map(|&row| {
                let found: Vec<PrintedLine> = self
                    .lines_on(&[row], usable)
                    .into_iter()
                    .filter(|line| {
                        line.amount.value != 0.0
                            && self.decimals(line.amount.run) == Some(2)
                            && [line.left.run, line.right.run]
                                .iter()
                                .any(|&run| self.decimals(run).is_some_and(|d| d >= 2))
                            && (row_of(self.pages, &self.runs[line.amount.run]) != row
                                || self.runs[line.amount.run].words.start
                                    > self.runs[line.right.run].words.start)
                    })
                    .collect();
                let first = *found.first()?;
                if !found.iter().all(|other| one_reading(&first, other)) {
                    return None;
                }
                // One reading printed twice (`1  Solar tile  205,00  1 pc
                // 205,00`): its factors are those nearest the amount, as
                // a position number is printed first (of readings that
                // start alike, the first found: its runs are the shortest).
                let nearest = found
                    .iter()
                    .min_by_key(|l| std::cmp::Reverse(self.runs[l.left.run].words.start))?;
                Some((row, *nearest))
            })
            .collect()
    }

    /// How many decimals a run prints its number with (`12,50`: 2), if
    /// any.
    fn decimals(&self, run: usize) -> Option<usize> {
        let run = &self.runs[run];
        let last = self.pages[run.page].words[run.words.clone()]
            .iter()
            .rev()
            .find(|w| w.text.chars().any(|c| c.is_ascii_digit()))?;
        let digits = last.text.trim_end_matches(|c: char| !c.is_ascii_digit());
        let places = digits
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .count();
        matches!(digits.chars().rev().nth(places), Some('.' | ',')).then_some(places)
    }

    /// Whether a row prints a number that reads as an amount, outside
    /// the words `except` (a description's own: `Karton 3 x 20`).
    pub(super) fn prints_amounts(
        &self,
        row: (usize, usize),
        except: std::ops::Range<usize>,
    ) -> bool {
        self.row(row).iter().any(|&run| {
            let r = &self.runs[run];
            !(except.start <= r.words.start && r.words.end <= except.end)
                && reads_as_an_amount(self.pages, r)
        })
    }

    /// The rows (page, row) that print most of the description's words,
    /// each with where those words begin; for a row that prints no amount
    /// of its own, the rows just above and below it too (a description
    /// set on a line of its own, above or below its numbers), with no
    /// place.
    pub(super) fn rows_describing(&self, description: &str) -> Vec<Described> {
        let mut rows = Vec::new();
        for (page, words) in described_rows(self.pages, description) {
            let row = (page, self.pages[page].words[words.start].line);
            rows.push(Described {
                row,
                place: Some(words.start),
            });
            if !self.prints_amounts(row, words) {
                let around = [row.1.checked_sub(1), Some(row.1 + 1)];
                rows.extend(around.into_iter().flatten().map(|r| Described {
                    row: (page, r),
                    place: None,
                }));
            }
        }
        rows
    }

    /// Whether a description's words printed on a line's row begin with
    /// one of the line's factors: a quantity and its unit (`20 Stk`) the
    /// model took for the description.
    pub(super) fn begins_with_a_factor(&self, place: usize, line: &PrintedLine) -> bool {
        [line.left.run, line.right.run]
            .iter()
            .any(|&run| self.runs[run].words.start == place)
    }

    /// The lines printed on `rows` (the amount there or a row lower) in
    /// `usable` runs.
    fn lines_on(
        &self,
        rows: &[(usize, usize)],
        usable: impl Fn(&usize) -> bool,
    ) -> Vec<PrintedLine> {
        let mut found = Vec::new();
        for &row in rows {
            let same: Vec<usize> = self.row(row).iter().copied().filter(&usable).collect();
            let amounts: Vec<usize> = self.runs_of(row, true).filter(&usable).collect();
            for (i, &left) in same.iter().enumerate() {
                for &right in &same[i + 1..] {
                    if self.overlap(left, right) {
                        continue;
                    }
                    for &amount in &amounts {
                        if self.overlap(amount, left) || self.overlap(amount, right) {
                            continue;
                        }
                        found.extend(self.multiplying(left, right, amount));
                    }
                }
            }
        }
        found
    }

    /// The readings of three runs as a quantity (or price) left, a price
    /// (or quantity) right and an amount that multiply out.
    fn multiplying(&self, left: usize, right: usize, amount: usize) -> Vec<PrintedLine> {
        let mut found = Vec::new();
        for &l in &self.runs[left].amounts {
            for &r in &self.runs[right].amounts {
                for &a in &self.runs[amount].amounts {
                    if multiplies_out(l, r, a) || multiplies_out(r, l, a) {
                        found.push(self.line(
                            Printed {
                                run: left,
                                value: l,
                            },
                            Printed {
                                run: right,
                                value: r,
                            },
                            Printed {
                                run: amount,
                                value: a,
                            },
                        ));
                    }
                }
            }
        }
        found
    }
}

/// Whether two lines print the same three numbers (the two factors in
/// either order).
pub(super) fn one_reading(a: &PrintedLine, b: &PrintedLine) -> bool {
    same(a.amount.value, b.amount.value)
        && ((same(a.left.value, b.left.value) && same(a.right.value, b.right.value))
            || (same(a.left.value, b.right.value) && same(a.right.value, b.left.value)))
}

fn row_of(pages: &[SearchPage], run: &Run) -> (usize, usize) {
    (run.page, pages[run.page].words[run.words.start].line)
}

/// A word as compared with a description's: lower case, without the
/// marks around it.
pub(super) fn folded(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// The rows that print most of the description's words (of three letters
/// or more), each with the words that print it: from the first such word
/// on the row, as far as the description's words go on either side.
fn described_rows(pages: &[SearchPage], description: &str) -> Vec<(usize, std::ops::Range<usize>)> {
    let tokens: HashSet<String> = description
        .split_whitespace()
        .map(folded)
        .filter(|w| !w.is_empty())
        .collect();
    let named = |w: &str| w.chars().count() >= 3 && w.chars().any(char::is_alphabetic);
    let mut best = 0;
    let mut rows = Vec::new();
    for (page_index, page) in pages.iter().enumerate() {
        for line in &page.lines {
            let words: Vec<String> = page.words[line.clone()]
                .iter()
                .map(|w| folded(&w.text))
                .collect();
            let found: HashSet<&String> = words
                .iter()
                .filter(|w| named(w) && tokens.contains(*w))
                .collect();
            if found.is_empty() || found.len() < best {
                continue;
            }
            if found.len() > best {
                best = found.len();
                rows.clear();
            }
            let Some(first) = words.iter().position(|w| named(w) && tokens.contains(w)) else {
                continue;
            };
            let start = (0..first)
                .rev()
                .take_while(|&i| tokens.contains(&words[i]))
                .last()
                .unwrap_or(first);
            let end = (first..words.len())
                .take_while(|&i| tokens.contains(&words[i]))
                .last()
                .map_or(first + 1, |i| i + 1);
            rows.push((page_index, line.start + start..line.start + end));
        }
    }
    rows
}
