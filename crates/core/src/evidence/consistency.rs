//! Checks that catch wrong values without the document: amounts that do
//! not add up, a date that is no date or far from now, an IBAN whose check
//! digits fail, a VAT number not of its country's shape. What a field is
//! comes from the locator's reading of the schema (its concepts), so the
//! checks work on any schema that names its fields, in any of the
//! languages the lexicon knows. A value a check finds wrong keeps its
//! value but gets low confidence and the reason, which the review queue
//! shows.

use std::collections::HashMap;

use serde_json::Value;
use sift_locate::fields::field_specs;
use sift_locate::lexicon::Concept;
use sift_locate::shapes::{compact, has_iban_shape, plausible_years, vat_shape};

use super::line_columns::line_columns;

/// Amounts agree within a cent (and its float error).
const CENT: f64 = 0.011;

/// What the checks found wrong, by evidence key (`total`, `seller.vat_id`).
pub fn value_problems(schema: &Value, values: &Value) -> HashMap<String, Vec<String>> {
    let mut problems: HashMap<String, Vec<String>> = HashMap::new();
    let mut add = |key: &str, problem: String| {
        problems.entry(key.to_owned()).or_default().push(problem);
    };
    let specs = field_specs(schema);
    let value_at = |path: &[String]| {
        path.iter()
            .try_fold(values, |v, k| v.get(k.as_str()))
            .filter(|v| !v.is_null())
    };
    // The first field of each concept stands for it.
    let mut by_concept: Vec<(Concept, String, &Value)> = Vec::new();
    for spec in &specs {
        let (Some(concept), Some(value)) = (spec.concept, value_at(&spec.path)) else {
            continue;
        };
        if !by_concept.iter().any(|(c, ..)| *c == concept) {
            by_concept.push((concept, spec.key(), value));
        }
    }
    let field = |concept: Concept| by_concept.iter().find(|(c, ..)| *c == concept);
    let amount = |concept: Concept| field(concept).and_then(|(_, key, v)| Some((key, v.as_f64()?)));

    if let (Some((net_key, net)), Some((tax_key, tax)), Some((total_key, total))) = (
        amount(Concept::Net),
        amount(Concept::Tax),
        amount(Concept::Total),
    ) && (net + tax - total).abs() > CENT
    {
        let problem = format!(
            "net {net:.2} + tax {tax:.2} = {:.2}, not the total {total:.2}",
            net + tax
        );
        for key in [net_key, tax_key, total_key] {
            add(key, problem.clone());
        }
    }
    if let Some(sum) = line_items_sum(schema, values) {
        let net = amount(Concept::Net);
        let total = amount(Concept::Total);
        let agrees = [net, total]
            .iter()
            .flatten()
            .any(|(_, v)| (sum - v).abs() <= CENT);
        let against: Vec<String> = [("net", net), ("total", total)]
            .iter()
            .filter_map(|(name, f)| f.map(|(_, v)| format!("the {name} {v:.2}")))
            .collect();
        if !agrees && !against.is_empty() {
            let problem = format!(
                "the line items add up to {sum:.2}, which is not {}",
                against.join(" nor ")
            );
            for (key, _) in [net, total].into_iter().flatten() {
                add(key, problem.clone());
            }
        }
    }
    let issue = field(Concept::IssueDate).and_then(|(_, key, v)| Some((key, v.as_str()?)));
    let due = field(Concept::DueDate).and_then(|(_, key, v)| Some((key, v.as_str()?)));
    for (key, text) in [issue, due].into_iter().flatten() {
        if let Some(problem) = date_problem(text) {
            add(key, problem);
        }
    }
    if let (Some((_, issued)), Some((due_key, due))) = (issue, due)
        && iso_date(issued).is_some_and(|_| date_problem(issued).is_none())
        && iso_date(due).is_some_and(|_| date_problem(due).is_none())
        && due < issued
    {
        add(
            due_key,
            format!("due {due} is before the issue date {issued}"),
        );
    }
    if let Some((key, Value::String(iban))) = field(Concept::Iban).map(|(_, k, v)| (k, *v))
        && let Some(problem) = iban_problem(iban)
    {
        add(key, problem);
    }
    if let Some((key, Value::String(vat))) = field(Concept::TaxId).map(|(_, k, v)| (k, *v))
        && let Some(problem) = vat_problem(vat)
    {
        add(key, problem);
    }
    problems
}

/// The sum of the line items' amounts: the first array of objects whose
/// items have an amount field (`amount`, `line_total`; not a unit price
/// or a tax), when every item has a number there.
fn line_items_sum(schema: &Value, values: &Value) -> Option<f64> {
    let columns = line_columns(schema)?;
    let items = values.get(&columns.array)?.as_array()?;
    if items.is_empty() {
        return None;
    }
    items
        .iter()
        .map(|item| item.get(&columns.amount)?.as_f64())
        .sum::<Option<f64>>()
}

/// `(year, month, day)` of an ISO date `YYYY-MM-DD` (a time after it is
/// allowed), when it has that form.
fn iso_date(text: &str) -> Option<(i32, u32, u32)> {
    let date = text.get(..10)?;
    let bytes = date.as_bytes();
    if bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    Some((
        date[..4].parse().ok()?,
        date[5..7].parse().ok()?,
        date[8..10].parse().ok()?,
    ))
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

fn date_problem(text: &str) -> Option<String> {
    let (year, month, day) = iso_date(text)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Some(format!("{} is not a date", &text[..10]));
    }
    let years = plausible_years();
    (!years.contains(&year)).then(|| {
        format!(
            "the year {year} is outside {}–{}",
            years.start(),
            years.end()
        )
    })
}

/// ISO 13616: the country and check digits moved to the end, letters as
/// numbers (A = 10), the whole mod 97 is 1.
fn iban_problem(text: &str) -> Option<String> {
    let iban = compact(text);
    if !has_iban_shape(text) {
        return Some(format!("{text} is not the shape of an IBAN"));
    }
    let mut remainder = 0u32;
    for c in iban[4..].chars().chain(iban[..4].chars()) {
        let n = c.to_digit(36)?;
        remainder = if n < 10 {
            (remainder * 10 + n) % 97
        } else {
            (remainder * 100 + n) % 97
        };
    }
    (remainder != 1).then(|| "the IBAN's check digits are wrong (mod 97)".to_owned())
}

/// Only a number that starts with a known country prefix is checked: a
/// national tax number (`123/456/78901`, a US EIN) has no shape here.
fn vat_problem(text: &str) -> Option<String> {
    let (country, fits_shape) = vat_shape(text)?;
    (!fits_shape).then(|| format!("{text} is not the shape of a {country} VAT number"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "invoice_date": {"type": "string"},
            "due_date": {"type": "string"},
            "seller_vat_id": {"type": "string"},
            "iban": {"type": "string"},
            "subtotal": {"type": "number"},
            "tax": {"type": "number"},
            "total": {"type": "number"},
            "line_items": {"type": "array", "items": {"type": "object", "properties": {
                "description": {"type": "string"},
                "unit_price": {"type": "number"},
                "amount": {"type": "number"},
            }}},
        }})
    }

    fn sorted(problems: HashMap<String, Vec<String>>) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<_> = problems.into_iter().collect();
        out.sort();
        out
    }

    #[test]
    fn consistent_values_have_no_problem() {
        let values = json!({
            "invoice_date": "2024-02-29", "due_date": "2024-03-30",
            "seller_vat_id": "DE 123 456 789", "iban": "DE89 3704 0044 0532 0130 00",
            "subtotal": 100.0, "tax": 19.0, "total": 119.0,
            "line_items": [{"amount": 60.0, "unit_price": 30.0}, {"amount": 40.0}],
        });
        assert_eq!(sorted(value_problems(&schema(), &values)), vec![]);
    }

    #[test]
    fn each_check_names_what_is_wrong() {
        let values = json!({
            "invoice_date": "2024-02-30", "due_date": "1899-01-01",
            "seller_vat_id": "DE12345", "iban": "DE88 3704 0044 0532 0130 00",
            "subtotal": 100.0, "tax": 19.0, "total": 120.0,
            "line_items": [{"amount": 60.0}, {"amount": 30.0}],
        });
        let sum = "net 100.00 + tax 19.00 = 119.00, not the total 120.00";
        let items =
            "the line items add up to 90.00, which is not the net 100.00 nor the total 120.00";
        let years = plausible_years();
        assert_eq!(
            sorted(value_problems(&schema(), &values)),
            vec![
                (
                    "due_date".to_owned(),
                    vec![format!("the year 1899 is outside 1980–{}", years.end())]
                ),
                (
                    "iban".to_owned(),
                    vec!["the IBAN's check digits are wrong (mod 97)".to_owned()]
                ),
                (
                    "invoice_date".to_owned(),
                    vec!["2024-02-30 is not a date".to_owned()]
                ),
                (
                    "seller_vat_id".to_owned(),
                    vec!["DE12345 is not the shape of a DE VAT number".to_owned()]
                ),
                (
                    "subtotal".to_owned(),
                    vec![sum.to_owned(), items.to_owned()]
                ),
                ("tax".to_owned(), vec![sum.to_owned()]),
                ("total".to_owned(), vec![sum.to_owned(), items.to_owned()]),
            ]
        );
    }

    #[test]
    fn a_due_date_before_the_issue_date_is_flagged_on_the_due_date() {
        let values = json!({"invoice_date": "2024-03-01", "due_date": "2024-02-01"});
        assert_eq!(
            sorted(value_problems(&schema(), &values)),
            vec![(
                "due_date".to_owned(),
                vec!["due 2024-02-01 is before the issue date 2024-03-01".to_owned()]
            )]
        );
    }

    #[test]
    fn vat_shapes_by_country_and_national_numbers_left_alone() {
        for good in [
            "FR 40 303 265 045",
            "NL123456789B01",
            "ATU12345678",
            "CHE-123.456.789 MWST",
            "ESX1234567X",
            "GB123456789",
        ] {
            assert_eq!(vat_problem(good), None, "{good}");
        }
        for national in ["123/456/78901", "12-3456789", "DEPOSIT"] {
            assert_eq!(vat_problem(national), None, "{national}");
        }
        assert_eq!(
            vat_problem("NL12345678901"),
            Some("NL12345678901 is not the shape of a NL VAT number".to_owned())
        );
    }

    #[test]
    fn strings_and_missing_amounts_are_not_summed() {
        let values = json!({"subtotal": "100", "tax": 19.0, "total": 120.0, "line_items": []});
        assert_eq!(sorted(value_problems(&schema(), &values)), vec![]);
    }
}
