//! A line item's numbers the model left empty or got wrong, worked out
//! from the other two or read again from the line's row on the page, and
//! kept only where the page prints them there.
//!
//! An invoice line's quantity times its unit price is its amount. A small
//! model often leaves one of the three empty, or writes one wrong, while
//! the other two are right: a quantity column headed "Amount" reads as
//! the line's total to it, so it writes the quantity as null or 1. So:
//!
//! - when exactly one of the three is missing, the other two give it;
//! - when all three are there and do not multiply out (beyond a printed
//!   price's rounding), each in turn is taken for the wrong one and worked
//!   out from the other two, and it is mended only when exactly one such
//!   reading is printed (several, and nothing is changed).
//!
//! The page decides: a worked-out number counts only if the line that
//! prints the other two (a visual row of the page, rebuilt from the words'
//! boxes) prints it too, in a place of its own; an amount may sit on the
//! row below (a cell two lines high). What is written is the number as
//! printed there (a unit price of `3.33` on a line of 3 for 10.00, not
//! 3.3333). A line with a discount, whose printed numbers do not multiply
//! out, gets nothing.
//!
//! A line whose numbers the page does not print together (the model took
//! the tax rate for the price and multiplied it out, or read another
//! line's numbers) and which one number cannot mend is read again from
//! the rows around its description: when exactly one quantity, price and
//! amount that multiply out are printed there, they are the line's. Which
//! of the two factors is the quantity is the one the model's numbers
//! share, else the page's own order of the two columns, as the lines it
//! prints as given show it.
//!
//! Last, the page's table: every row that prints one line (a quantity,
//! price and amount that multiply out) is claimed by the answer's line
//! that it prints, and a row no line claims is a line the model left
//! out, added where the page prints it (`table_rows`); the heading over
//! the table's quantities, where it has one, says which factor is the
//! quantity (`headings`).

mod descriptions;
mod headings;
mod printed;
mod table_rows;
#[cfg(test)]
mod table_tests;
#[cfg(test)]
mod tests;

use serde_json::Value;
use sift_locate::pages::SearchPage;
use sift_locate::rows::in_rows;
use sift_locate::runs::value_runs;

use crate::evidence::line_columns::line_columns;
use printed::{PrintedRows, multiplies_out, one_reading, same};
use table_rows::{Entry, Keys, take_table_rows};

/// A line item as the model gave it: its three numbers (quantity, unit
/// price, amount) and its description.
struct Line {
    index: usize,
    numbers: [Option<f64>; 3],
    description: Option<String>,
}

/// Fills or mends each line item's quantity, unit price or amount where
/// the page prints them (see the module docs); returns the keys written
/// (`lines[2].quantity`).
pub(crate) fn complete_lines(
    schema: &Value,
    values: &mut Value,
    pages: &[SearchPage],
) -> Vec<String> {
    let Some(columns) = line_columns(schema) else {
        return Vec::new();
    };
    let (Some(quantity), Some(unit_price)) = (columns.quantity, columns.unit_price) else {
        return Vec::new();
    };
    let keys = [quantity, unit_price, columns.amount];
    let Some(fields) = values.as_object_mut() else {
        return Vec::new();
    };
    // No items (the key left out or null) is a table of none: the page's
    // rows may still be taken.
    let mut items = match fields.get_mut(&columns.array) {
        Some(Value::Array(items)) => std::mem::take(items),
        Some(Value::Null) | None => Vec::new(),
        Some(_) => return Vec::new(),
    };
    let lines: Vec<Line> = items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| {
            let fields = item.as_object()?;
            // A field holding something other than a number or null (a
            // string, say) is the model's to keep: nothing is worked out.
            if keys.iter().any(|k| {
                fields
                    .get(k)
                    .is_some_and(|v| !v.is_null() && !v.is_number())
            }) {
                return None;
            }
            let description = columns
                .description
                .as_ref()
                .and_then(|d| fields.get(d))
                .and_then(Value::as_str)
                .map(str::to_owned);
            Some(Line {
                index,
                numbers: keys.clone().map(|k| fields.get(&k).and_then(Value::as_f64)),
                description,
            })
        })
        .collect();
    // A line item's numbers are one visual row, which the text's own
    // lines may part (a description wrapped onto a second line).
    let rows = in_rows(pages);
    let runs = value_runs(&rows);
    let printed = PrintedRows::new(&rows, &runs);
    let mut mends: Vec<(usize, [Option<f64>; 3])> = Vec::new();
    let mut to_read_again = Vec::new();
    // Whether the quantity's column is left of the price's, line by line.
    let (mut quantity_left, mut price_left) = (0, 0);
    for line in &lines {
        if let [Some(q), Some(p), Some(a)] = line.numbers
            && multiplies_out(q, p, a)
        {
            let Some(place) = printed.printed_as_given([q, p, a]) else {
                to_read_again.push(line);
                continue;
            };
            if place.left.value != place.right.value {
                if place.left.value == q {
                    quantity_left += 1;
                } else {
                    price_left += 1;
                }
            }
            continue;
        }
        match mended(line.numbers, &printed) {
            Some((which, number)) => {
                let mut numbers = line.numbers;
                numbers[which] = Some(number);
                mends.push((line.index, numbers));
            }
            None => to_read_again.push(line),
        }
    }
    let quantity_first = column_order(quantity_left, price_left);
    for line in to_read_again {
        if let Some(numbers) = read_again(line, &printed, quantity_first) {
            mends.push((line.index, numbers.map(Some)));
        }
    }
    mends.sort_by_key(|(index, _)| *index);
    let mut entries: Vec<Entry> = items
        .drain(..)
        .map(|value| Entry {
            value,
            written: Vec::new(),
        })
        .collect();
    for (index, numbers) in mends {
        entries[index].write_numbers(&keys, numbers);
    }
    let table_keys = Keys {
        numbers: &keys,
        description: columns.description.as_deref(),
    };
    take_table_rows(&mut entries, &table_keys, &printed, quantity_first);
    let mut written = Vec::new();
    for (index, entry) in entries.into_iter().enumerate() {
        written.extend(
            entry
                .written
                .iter()
                .map(|key| format!("{}[{index}].{key}", columns.array)),
        );
        items.push(entry.value);
    }
    match fields.get_mut(&columns.array) {
        Some(held @ Value::Array(_)) => *held = Value::Array(items),
        _ if !items.is_empty() => {
            fields.insert(columns.array.clone(), Value::Array(items));
        }
        _ => {}
    }
    written
}

/// Whether the quantity's column is left of the price's, from how many
/// lines printed as given put it left and how many right: `None` when
/// none do, or they disagree.
fn column_order(quantity_left: usize, price_left: usize) -> Option<bool> {
    match (quantity_left, price_left) {
        (0, 0) => None,
        (_, 0) => Some(true),
        (0, _) => Some(false),
        _ => None,
    }
}

/// Which of `[quantity, unit price, amount]` may be the wrong one: the
/// one missing when one is, all three when they do not multiply out
/// (beyond a printed price's rounding), else none.
fn suspects(numbers: [Option<f64>; 3]) -> Vec<usize> {
    match numbers {
        [Some(q), Some(p), Some(a)] if multiplies_out(q, p, a) => Vec::new(),
        [Some(_), Some(_), Some(_)] => vec![0, 1, 2],
        _ => {
            let missing: Vec<usize> = (0..3).filter(|&i| numbers[i].is_none()).collect();
            if missing.len() == 1 {
                missing
            } else {
                Vec::new()
            }
        }
    }
}

/// Which of `[quantity, unit price, amount]` to write, and the number
/// printed for it; `None` when the page does not settle it.
fn mended(numbers: [Option<f64>; 3], printed: &PrintedRows) -> Option<(usize, f64)> {
    let mut readings = suspects(numbers).into_iter().filter_map(|which| {
        let (known, value) = worked_out(numbers, which)?;
        let printed = printed.reading(known, value, which == 2)?;
        // A reading that prints what the line already holds mends nothing.
        numbers[which]
            .is_none_or(|held| !same(held, printed))
            .then_some((which, printed))
    });
    let first = readings.next()?;
    readings.next().is_none().then_some(first)
}

/// The two numbers `which` comes from, and what they make it.
fn worked_out(numbers: [Option<f64>; 3], which: usize) -> Option<([f64; 2], f64)> {
    let [q, p, a] = numbers;
    match which {
        0 => {
            let (p, a) = (p.filter(|p| *p != 0.0)?, a?);
            Some(([p, a], a / p))
        }
        1 => {
            let (q, a) = (q.filter(|q| *q != 0.0)?, a?);
            Some(([q, a], a / q))
        }
        _ => {
            let (q, p) = (q?, p?);
            Some(([q, p], q * p))
        }
    }
}

/// The line's three numbers read again from the rows around its
/// description: the one quantity, price and amount printed there that
/// multiply out, the quantity told from the price by the model's own
/// numbers, else by `quantity_first` (the page's column order).
fn read_again(
    line: &Line,
    printed: &PrintedRows,
    quantity_first: Option<bool>,
) -> Option<[f64; 3]> {
    let found = printed.lines_near(line.description.as_deref()?);
    let first = *found.first()?;
    // One reading: every place prints the same three numbers.
    if !found.iter().all(|other| one_reading(&first, other)) {
        return None;
    }
    let (left, right, amount) = (first.left.value, first.right.value, first.amount.value);
    let [q, p, _] = line.numbers;
    let shares = |quantity: f64, price: f64| {
        usize::from(q.is_some_and(|q| same(q, quantity)))
            + usize::from(p.is_some_and(|p| same(p, price)))
    };
    let as_given = (shares(left, right), shares(right, left));
    let quantity_left = match as_given {
        (l, r) if l > r => true,
        (l, r) if r > l => false,
        _ => quantity_first?,
    };
    // Both orders must multiply out for the one chosen to be the answer's
    // (a price of 3.33 for 3 at 10.00 is so only as quantity 3).
    let [quantity, price] = if quantity_left {
        [left, right]
    } else {
        [right, left]
    };
    multiplies_out(quantity, price, amount).then_some([quantity, price, amount])
}
