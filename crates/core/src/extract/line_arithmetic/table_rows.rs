//! Lines the model left out, or wrote twice in place of another, taken
//! from the page's table.
//!
//! A row that prints one quantity, unit price and amount that multiply
//! out, the amount as money right of the two (or a row below), is a line
//! of the invoice's table (`PrintedRows::table_rows`). Each line of the
//! answer claims the row that prints it: its three numbers and its
//! description there, else its numbers, else its description (the row's
//! numbers are then the line's), else its amount (and its description
//! too, when the row does not print it). A row no line claims is a line
//! the model left out: it is added where the page prints it, its
//! description the row's words. Which factor is the quantity is what the
//! heading over the quantities says (`Menge`, `Qty`, see `headings`),
//! even for a line printed as given. A line whose numbers only a row another
//! line claimed prints is a second copy of that line, written in place
//! of one left out: it is dropped when a row is added.

use serde_json::{Map, Number, Value};

use super::column_order;
use super::headings::quantity_left_by_heading;
use super::printed::{Described, PrintedLine, PrintedRows, same};

/// A line item as the answer will hold it, and the keys of it the page
/// wrote (not the model).
pub(super) struct Entry {
    pub value: Value,
    pub written: Vec<String>,
}

/// The answer's line-item columns: quantity, unit price and amount, and
/// the description's when the items have one.
pub(super) struct Keys<'a> {
    pub numbers: &'a [String; 3],
    pub description: Option<&'a str>,
}

/// How a line claimed its row.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Claim {
    /// The row prints the line's numbers: nothing to change.
    AsGiven,
    /// The row prints the line's description: its numbers are the row's.
    Described,
    /// The row prints the line's amount: its numbers are the row's, and
    /// its description too unless the row prints it.
    Amount,
}

/// Takes the page's table rows into `entries` (see the module docs).
pub(super) fn take_table_rows(
    entries: &mut Vec<Entry>,
    keys: &Keys,
    printed: &PrintedRows,
    quantity_first: Option<bool>,
) {
    let table = printed.table_rows();
    if table.is_empty() {
        return;
    }
    let numbers: Vec<[Option<f64>; 3]> = entries
        .iter()
        .map(|e| {
            keys.numbers
                .clone()
                .map(|k| e.value.get(&k).and_then(Value::as_f64))
        })
        .collect();
    let described: Vec<Vec<Described>> = entries
        .iter()
        .map(|e| {
            keys.description
                .and_then(|k| e.value.get(k))
                .and_then(Value::as_str)
                .map(|d| printed.rows_describing(d))
                .unwrap_or_default()
        })
        .collect();
    let prints = |i: usize, t: usize| prints_as_given(numbers[i], &table[t].1);
    let describes = |i: usize, t: usize| described[i].iter().any(|d| d.row == table[t].0);
    // The description as the model wrote it is not the line's: its words
    // are none the page prints, or they begin with the line's quantity,
    // or they are printed away from the row, which prints its own before
    // its numbers (the model took a note below the line for it).
    let misdescribed = |i: usize, t: usize| {
        let (row, line) = &table[t];
        described[i].is_empty()
            || (!describes(i, t) && printed.description_before_numbers(*row, line).is_some())
            || described[i].iter().any(|d| {
                d.row == *row
                    && d.place
                        .is_some_and(|p| printed.begins_with_a_factor(p, line))
            })
    };
    let mut claim: Vec<Option<(usize, Claim)>> = vec![None; entries.len()];
    let mut claimed = vec![false; table.len()];
    take(
        &mut claim,
        &mut claimed,
        |i, t| prints(i, t) && describes(i, t),
        Claim::AsGiven,
    );
    take(&mut claim, &mut claimed, prints, Claim::AsGiven);
    // The table's column order, as the lines it prints as given show it
    // (the whole page's, `quantity_first`, counts lines printed anywhere).
    let (mut quantity_left, mut price_left) = (0, 0);
    for (i, found) in claim.iter().enumerate() {
        let (Some((t, _)), Some(q)) = (found, numbers[i][0]) else {
            continue;
        };
        let line = &table[*t].1;
        if !same(line.left.value, line.right.value) {
            if same(line.left.value, q) {
                quantity_left += 1;
            } else {
                price_left += 1;
            }
        }
    }
    // The heading over the quantities, where the table has one, says
    // which factor is the quantity over all the lines say.
    let heading = quantity_left_by_heading(printed, &table);
    let quantity_first = match (heading, quantity_left, price_left) {
        (Some(left), _, _) => Some(left),
        (None, 0, 0) => quantity_first,
        _ => column_order(quantity_left, price_left),
    };
    // A second copy: its numbers printed only on a row claimed already.
    let copies: Vec<bool> = (0..entries.len())
        .map(|i| claim[i].is_none() && (0..table.len()).any(|t| prints(i, t)))
        .collect();
    take(
        &mut claim,
        &mut claimed,
        |i, t| !copies[i] && describes(i, t),
        Claim::Described,
    );
    take(
        &mut claim,
        &mut claimed,
        |i, t| !copies[i] && numbers[i][2].is_some_and(|a| same(a, table[t].1.amount.value)),
        Claim::Amount,
    );
    let added: Vec<Option<Entry>> = table
        .iter()
        .zip(&claimed)
        .map(|(&(row, line), &claimed)| {
            if claimed {
                return None;
            }
            let description = printed.description_of(row, &line);
            if keys.description.is_some() && description.is_none() {
                return None;
            }
            // Which factor is the quantity: as the page shows it, else
            // the left one, as most tables print them.
            let numbers = ordered(&line, None, quantity_first).unwrap_or([
                line.left.value,
                line.right.value,
                line.amount.value,
            ]);
            Some(new_entry(keys, description, numbers))
        })
        .collect();
    let adding = added.iter().any(Option::is_some);
    let mut added = added.into_iter().enumerate().peekable();
    let mut rebuilt = Vec::with_capacity(entries.len() + table.len());
    for (i, mut entry) in entries.drain(..).enumerate() {
        if copies[i] && adding {
            continue;
        }
        if let Some((t, how)) = claim[i] {
            // The rows the page prints before this line's, left out.
            while let Some((_, new)) = added.next_if(|(u, _)| *u < t) {
                rebuilt.extend(new);
            }
            let (row, line) = table[t];
            // A line printed as given keeps its numbers unless the heading
            // says its quantity is the other factor.
            if how != Claim::AsGiven || heading.is_some() {
                // Where the page does not tell the quantity from the
                // price, the line keeps the model's numbers; where the
                // heading tells, the model's numbers do not count.
                let model = heading.is_none().then_some(numbers[i]);
                if let Some(new) = ordered(&line, model, quantity_first) {
                    entry.write_numbers(keys.numbers, new.map(Some));
                }
            }
            if (how == Claim::Amount && !describes(i, t)) || misdescribed(i, t) {
                write_description(&mut entry, keys, printed.description_of(row, &line));
            }
        }
        rebuilt.push(entry);
    }
    rebuilt.extend(added.filter_map(|(_, new)| new));
    *entries = rebuilt;
}

/// Each line not yet claiming a row claims the first row no line has
/// claimed that passes `test` (line, row).
fn take(
    claim: &mut [Option<(usize, Claim)>],
    claimed: &mut [bool],
    test: impl Fn(usize, usize) -> bool,
    how: Claim,
) {
    for (i, line_claim) in claim.iter_mut().enumerate() {
        if line_claim.is_some() {
            continue;
        }
        if let Some(t) = (0..claimed.len()).find(|&t| !claimed[t] && test(i, t)) {
            claimed[t] = true;
            *line_claim = Some((t, how));
        }
    }
}

/// Whether a row's line prints the three numbers.
fn prints_as_given(numbers: [Option<f64>; 3], line: &PrintedLine) -> bool {
    let [Some(q), Some(p), Some(a)] = numbers else {
        return false;
    };
    let (l, r) = (line.left.value, line.right.value);
    same(a, line.amount.value) && ((same(q, l) && same(p, r)) || (same(q, r) && same(p, l)))
}

/// A row's line as `[quantity, unit price, amount]`: the factor the
/// model's numbers share is the quantity, else the page's column order
/// (the heading over the quantities, or the lines it prints as given),
/// else the one factor that is a whole number (`10000,0000` of
/// `0,0520`). `None` when none of these tells.
fn ordered(
    line: &PrintedLine,
    model: Option<[Option<f64>; 3]>,
    quantity_first: Option<bool>,
) -> Option<[f64; 3]> {
    let (left, right) = (line.left.value, line.right.value);
    let shares = |quantity: f64, price: f64| {
        model.map_or(0, |[q, p, _]| {
            usize::from(q.is_some_and(|q| same(q, quantity)))
                + usize::from(p.is_some_and(|p| same(p, price)))
        })
    };
    let whole = |x: f64| x.fract() == 0.0;
    let quantity_left = match (shares(left, right), shares(right, left)) {
        (l, r) if l > r => true,
        (l, r) if r > l => false,
        _ => quantity_first.or_else(|| (whole(left) != whole(right)).then(|| whole(left)))?,
    };
    Some(if quantity_left {
        [left, right, line.amount.value]
    } else {
        [right, left, line.amount.value]
    })
}

fn new_entry(keys: &Keys, description: Option<String>, numbers: [f64; 3]) -> Entry {
    let mut entry = Entry {
        value: Value::Object(Map::new()),
        written: Vec::new(),
    };
    write_description(&mut entry, keys, description);
    entry.write_numbers(keys.numbers, numbers.map(Some));
    entry
}

impl Entry {
    /// Writes the numbers given under `keys` (quantity, unit price,
    /// amount) where they differ from the entry's, noting each written.
    pub(super) fn write_numbers(&mut self, keys: &[String; 3], numbers: [Option<f64>; 3]) {
        let Some(fields) = self.value.as_object_mut() else {
            return;
        };
        for (key, number) in keys.iter().zip(numbers) {
            let Some(number) = number else {
                continue;
            };
            if fields
                .get(key)
                .and_then(Value::as_f64)
                .is_some_and(|held| same(held, number))
            {
                continue;
            }
            if let Some(json) = Number::from_f64(number) {
                fields.insert(key.clone(), Value::Number(json));
                self.written.push(key.clone());
            }
        }
    }
}

fn write_description(entry: &mut Entry, keys: &Keys, description: Option<String>) {
    let (Some(key), Some(description), Some(fields)) =
        (keys.description, description, entry.value.as_object_mut())
    else {
        return;
    };
    fields.insert(key.to_owned(), Value::String(description));
    entry.written.push(key.to_owned());
}
