//! A line item's number the model left empty or got wrong, worked out
//! from the other two and kept only where the page prints it on that line.
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
//! boxes) prints it too, in a place of its own. What is written is the
//! number as printed there (a unit price of `3.33` on a line of 3 for
//! 10.00, not 3.3333). A line with a discount, whose printed numbers do
//! not multiply out, gets nothing.

use serde_json::{Number, Value};
use sift_locate::pages::SearchPage;
use sift_locate::rows::in_rows;
use sift_locate::runs::{Run, value_runs};

use crate::evidence::line_columns::line_columns;

/// How far a printed number may be from the worked-out one: half a cent,
/// so a unit price printed to two decimals matches its exact quotient.
const PRINTED_ROUNDING: f64 = 0.005;

/// Fills or mends each line item's quantity, unit price or amount where
/// the page prints the worked-out number (see the module docs); returns
/// the keys written (`lines[2].quantity`).
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
    let Some(items) = values.get_mut(&columns.array).and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    // Each line's three numbers, and which may be wrong; a line whole
    // and right (most) needs no look at the page.
    let lines: Vec<(usize, [Option<f64>; 3], Vec<usize>)> = items
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
            let numbers = keys.clone().map(|k| fields.get(&k).and_then(Value::as_f64));
            let suspects = suspects(numbers);
            (!suspects.is_empty()).then_some((index, numbers, suspects))
        })
        .collect();
    if lines.is_empty() {
        return Vec::new();
    }
    // A line item's numbers are one visual row, which the text's own
    // lines may part (a description wrapped onto a second line).
    let rows = in_rows(pages.to_vec());
    let runs = value_runs(&rows);
    let mut written = Vec::new();
    for (index, numbers, suspects) in lines {
        let Some((which, printed)) = mended(numbers, suspects, &rows, &runs) else {
            continue;
        };
        let (Some(printed), Some(fields)) =
            (Number::from_f64(printed), items[index].as_object_mut())
        else {
            continue;
        };
        fields.insert(keys[which].clone(), Value::Number(printed));
        written.push(format!("{}[{index}].{}", columns.array, keys[which]));
    }
    written
}

/// Which of `[quantity, unit price, amount]` may be the wrong one: the
/// one missing when one is, all three when they do not multiply out
/// (beyond a printed price's rounding), else none.
fn suspects(numbers: [Option<f64>; 3]) -> Vec<usize> {
    match numbers {
        [Some(q), Some(p), Some(a)] if (q * p - a).abs() <= PRINTED_ROUNDING * (2.0 + q.abs()) => {
            Vec::new()
        }
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

/// Which of the `suspects` among `[quantity, unit price, amount]` to
/// write, and the number printed for it; `None` when the page does not
/// settle it.
fn mended(
    numbers: [Option<f64>; 3],
    suspects: Vec<usize>,
    pages: &[SearchPage],
    runs: &[Run],
) -> Option<(usize, f64)> {
    let mut readings = suspects.into_iter().filter_map(|which| {
        let printed = worked_out(numbers, which)
            .and_then(|(known, value)| printed_on_one_line(pages, runs, known, value))?;
        // A reading that prints what the line already holds mends nothing.
        let differs =
            numbers[which].is_none_or(|held| (held - printed).abs() > 1e-9 * held.abs().max(1.0));
        differs.then_some((which, printed))
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

/// The number near `worked_out` printed on a line that prints both
/// `known` numbers, each of the three in runs of words that do not
/// overlap; the first such line's.
fn printed_on_one_line(
    pages: &[SearchPage],
    runs: &[Run],
    known: [f64; 2],
    worked_out: f64,
) -> Option<f64> {
    let line_of = |run: &Run| (run.page, pages[run.page].words[run.words.start].line);
    let overlaps = |a: &Run, b: &Run| {
        a.page == b.page && a.words.start < b.words.end && b.words.start < a.words.end
    };
    let near = |run: &Run, target: f64, tolerance: f64| {
        run.amounts
            .iter()
            .copied()
            .find(|x| (x - target).abs() <= tolerance)
    };
    // The known numbers are the answer's, as printed: near to float error.
    let exact = |x: f64| 1e-9 * x.abs().max(1.0);
    for first in runs
        .iter()
        .filter(|r| near(r, known[0], exact(known[0])).is_some())
    {
        let line = line_of(first);
        for second in runs.iter().filter(|r| {
            line_of(r) == line
                && !overlaps(r, first)
                && near(r, known[1], exact(known[1])).is_some()
        }) {
            let third = runs.iter().find_map(|r| {
                (line_of(r) == line && !overlaps(r, first) && !overlaps(r, second))
                    .then(|| near(r, worked_out, PRINTED_ROUNDING.max(exact(worked_out))))
                    .flatten()
            });
            if third.is_some() {
                return third;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;
    use sift_documents::{Content, Document, Kind, Page, PageWord, WordLines};
    use sift_locate::pages::search_pages;

    use super::*;
    use crate::evidence::tests::text_document;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"lines": {"type": "array", "items": {"type": "object", "properties": {
            "description": {"type": "string"},
            "quantity": {"type": ["number", "null"]},
            "unit_price": {"type": ["number", "null"]},
            "amount": {"type": ["number", "null"]}
        }}}}})
    }

    /// A text document's page: each line of `text` a line of words.
    fn pages(text: &str) -> Vec<SearchPage> {
        search_pages(&text_document(text))
    }

    /// A quantity column headed "Amount": the model left the quantity out.
    #[test]
    fn a_missing_quantity_is_the_amount_over_the_price_as_printed_on_its_line() {
        let page = pages(
            "Amount    Product        VAT      Price        Total\n\
             1.00       Design (hours)    7%       160.00 €     160.00 €\n\
             400.00    Ballons        19%      0.79 €        316.00 €\n",
        );
        let mut values = json!({"lines": [
            {"description": "Design (hours)", "quantity": null, "unit_price": 160.0, "amount": 160.0},
            {"description": "Ballons", "unit_price": 0.79, "amount": 316.0}
        ]});
        let filled = complete_lines(&schema(), &mut values, &page);
        assert_eq!(filled, ["lines[0].quantity", "lines[1].quantity"]);
        assert_eq!(values["lines"][0]["quantity"], json!(1.0));
        assert_eq!(values["lines"][1]["quantity"], json!(400.0));
    }

    #[test]
    fn a_unit_price_is_written_as_printed_and_an_amount_as_the_product() {
        let page = pages("Kunstrasen 3 Stk 3,33 10,00\nPfand 20 x 2,77 55,40\n");
        let mut values = json!({"lines": [
            {"description": "Kunstrasen", "quantity": 3, "unit_price": null, "amount": 10.0},
            {"description": "Pfand", "quantity": 20, "unit_price": 2.77, "amount": null}
        ]});
        let filled = complete_lines(&schema(), &mut values, &page);
        assert_eq!(filled, ["lines[0].unit_price", "lines[1].amount"]);
        assert_eq!(values["lines"][0]["unit_price"], json!(3.33));
        assert_eq!(values["lines"][1]["amount"], json!(55.4));
    }

    /// Nothing is filled that the line does not print: a discount's line
    /// (3 × 4.00 is not its 10.00), a number printed on another line only,
    /// or a line with two numbers missing.
    #[test]
    fn nothing_is_filled_that_its_line_does_not_print() {
        let page = pages("Kunstrasen 3 4,00 10,00\nPfand 2,77 55,40\nRow 20\nTee 1,00\n");
        let mut values = json!({"lines": [
            {"description": "Kunstrasen", "quantity": 3, "unit_price": 4.0, "amount": null},
            {"description": "Pfand", "quantity": null, "unit_price": 2.77, "amount": 55.4},
            {"description": "Tee", "quantity": null, "unit_price": 1.0, "amount": null}
        ]});
        let before = values.clone();
        assert_eq!(
            complete_lines(&schema(), &mut values, &page),
            Vec::<String>::new()
        );
        assert_eq!(values, before);
    }

    /// A quantity of 1 written for a printed 400 (the line does not
    /// multiply out) is mended; a line that multiplies out is left as it
    /// is, and so is one two readings of which are printed.
    #[test]
    fn a_wrong_number_is_mended_only_where_one_reading_is_printed() {
        let page = pages(
            "Luftballon 400 Stk 0,79 316,00
             Kunstrasen 3 Stk 3,3333 10,00 19%
             Tee 2 1,00 2,00
             Saft 2 3 4 6 8
",
        );
        let mut values = json!({"lines": [
            {"description": "Luftballon", "quantity": 1, "unit_price": 0.79, "amount": 316.0},
            {"description": "Kunstrasen", "quantity": 3, "unit_price": 3.3333, "amount": 19},
            {"description": "Tee", "quantity": 2, "unit_price": 1.0, "amount": 2.0},
            {"description": "Saft", "quantity": 2, "unit_price": 3, "amount": 8}
        ]});
        let filled = complete_lines(&schema(), &mut values, &page);
        assert_eq!(filled, ["lines[0].quantity", "lines[1].amount"]);
        assert_eq!(values["lines"][0]["quantity"], json!(400.0));
        assert_eq!(values["lines"][1]["amount"], json!(10.0));
        assert_eq!(
            values["lines"][2],
            json!({"description": "Tee", "quantity": 2, "unit_price": 1.0, "amount": 2.0})
        );
        // Saft: 2 x 3 is not 8, and both 2 x 3 = 6 (the amount wrong) and
        // 8 / 2 = 4 (the price wrong) are printed: left as written.
        assert_eq!(
            values["lines"][3],
            json!({"description": "Saft", "quantity": 2, "unit_price": 3, "amount": 8})
        );
    }

    /// A PDF's text may give a row's words as two lines (the quantity
    /// column drawn apart from the rest): the row is rebuilt from the
    /// words' boxes, as the locator reads it, and the quantity found there.
    #[test]
    fn a_rows_numbers_are_read_on_the_row_the_boxes_make() {
        // (text, left, top) in points; every word 40 wide and 8 high.
        let word = |text: &str, left: f32, top: f32| PageWord {
            text: text.into(),
            left,
            top,
            width: 40.0,
            height: 8.0,
            confidence: 100.0,
        };
        let lines = vec![
            vec![
                word("Ballons", 60.0, 100.0),
                word("0,79", 200.0, 100.0),
                word("316,00", 260.0, 100.0),
            ],
            vec![word("various", 60.0, 110.0)],
            vec![word("400,00", 10.0, 100.0)],
        ];
        let text = "Ballons 0,79 316,00\nvarious\n400,00";
        let page = search_pages(&Document {
            path: PathBuf::from("invoice.pdf"),
            name: "invoice.pdf".into(),
            kind: Kind::Pdf,
            content: Content::Pages(vec![Page {
                number: 1,
                text: text.into(),
                image: None,
                image_omitted: false,
                ocr: None,
                text_words: Some(WordLines {
                    width: 500.0,
                    height: 800.0,
                    lines,
                }),
            }]),
            ocr: None,
            invoice_xml: None,
        });
        let mut values = json!({"lines": [
            {"description": "Ballons", "quantity": null, "unit_price": 0.79, "amount": 316.0}
        ]});
        assert_eq!(
            complete_lines(&schema(), &mut values, &page),
            ["lines[0].quantity"]
        );
        assert_eq!(values["lines"][0]["quantity"], json!(400.0));
    }

    /// The two known numbers and the worked-out one are three places: a
    /// quantity of 1 is not read from the price's own `1`.
    #[test]
    fn the_worked_out_number_has_a_place_of_its_own() {
        let page = pages("Service 1 1\n");
        let mut values = json!({"lines": [
            {"description": "Service", "quantity": null, "unit_price": 1, "amount": 1}
        ]});
        assert_eq!(
            complete_lines(&schema(), &mut values, &page),
            Vec::<String>::new()
        );
        assert_eq!(values["lines"][0]["quantity"], Value::Null);
    }
}
