//! A line item's missing number, worked out from the other two and kept
//! only where the page prints it on that line.
//!
//! An invoice line's quantity times its unit price is its amount. A small
//! model often leaves one of the three empty while writing the other two
//! right: a quantity column headed "Amount" reads as the line's total to
//! it, so it writes the quantity as null. When exactly one of the three is
//! missing, the other two give it, and the page decides: the number is
//! kept only if the line that prints the other two (a visual row of the
//! page, rebuilt from the words' boxes) prints it too, in a place of its
//! own. What is written is the number as printed there (a unit price of
//! `3.33` on a line of 3 for 10.00, not 3.3333). A line with a discount,
//! whose numbers do not multiply out, gets nothing.

use serde_json::{Number, Value};
use sift_locate::pages::SearchPage;
use sift_locate::runs::{Run, value_runs};

use crate::evidence::line_columns::line_columns;

/// How far a printed number may be from the worked-out one: half a cent,
/// so a unit price printed to two decimals matches its exact quotient.
const PRINTED_ROUNDING: f64 = 0.005;

/// Fills each line item's one missing number of quantity, unit price and
/// amount where the page prints it (see the module docs); returns the
/// keys filled (`lines[2].quantity`).
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
    let Some(items) = values.get_mut(&columns.array).and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    let runs = value_runs(pages);
    let mut filled = Vec::new();
    for (index, item) in items.iter_mut().enumerate() {
        let Some(fields) = item.as_object_mut() else {
            continue;
        };
        let number = |key: &str| fields.get(key).and_then(Value::as_f64);
        let (q, p, a) = (
            number(&quantity),
            number(&unit_price),
            number(&columns.amount),
        );
        // The missing one, the two it comes from, and what it works out to.
        let (missing, known, worked_out) = match (q, p, a) {
            (None, Some(p), Some(a)) if p != 0.0 => (&quantity, [p, a], a / p),
            (Some(q), None, Some(a)) if q != 0.0 => (&unit_price, [q, a], a / q),
            (Some(q), Some(p), None) => (&columns.amount, [q, p], q * p),
            _ => continue,
        };
        // Only an absent or null field is filled, never a value of another type.
        if fields.get(missing).is_some_and(|v| !v.is_null()) {
            continue;
        }
        let Some(printed) = printed_on_one_line(pages, &runs, known, worked_out) else {
            continue;
        };
        let Some(printed) = Number::from_f64(printed) else {
            continue;
        };
        fields.insert(missing.clone(), Value::Number(printed));
        filled.push(format!("{}[{index}].{missing}", columns.array));
    }
    filled
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
    use sift_documents::{Content, Document, Kind};
    use sift_locate::pages::search_pages;

    use super::*;

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
        search_pages(&Document {
            path: PathBuf::from("invoice.txt"),
            name: "invoice.txt".into(),
            kind: Kind::Text,
            content: Content::Text(text.into()),
            ocr: None,
            invoice_xml: None,
        })
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
