//! A page of very many values (a hostile file's one line of 160,000
//! amounts) is located as a page of few: each amount is looked up among
//! the others by value, never compared with every one of them.

use serde_json::json;

use super::{four_fields, text_document};
use crate::locate_fields;

/// As many amounts as no invoice prints, few enough for a test: compared
/// pairwise they would be 400 million comparisons per question.
const MANY: usize = 20_000;

#[test]
fn one_line_of_many_equal_amounts_gives_one_candidate() {
    let line = format!("Total: {}\n", vec!["12.50"; MANY].join(" "));
    let located = locate_fields(&text_document(&line), &four_fields());
    let total = located.iter().find(|f| f.key == "total").unwrap();
    assert_eq!(total.candidates.len(), 1);
    assert_eq!(total.best(), Some(&json!(12.5)));
    // The first amount, right after the label (108), and the most a
    // value gains for being printed again (9).
    assert_eq!(total.candidates[0].score, 117);
    assert!(total.sure);
}

#[test]
fn many_equal_taxes_at_a_printed_rate_are_still_no_total() {
    let text = format!(
        "Net 100.00\nTotal 106.00\n(Inclusive) GST 6% {}\n",
        vec!["6.00"; MANY].join(" ")
    );
    let located = locate_fields(&text_document(&text), &four_fields());
    let total = located.iter().find(|f| f.key == "total").unwrap();
    let values: Vec<_> = total.candidates.iter().map(|c| &c.value).collect();
    assert_eq!(values, [&json!(106.0), &json!(6.0)]);
    // 6.00 is 6% of 106.00 included in it: taken for unlabelled (1),
    // with the most a value gains for being printed again (9).
    assert_eq!(total.candidates[1].score, 10);
}

#[test]
fn one_line_of_many_different_amounts_gives_the_labelled_one_first() {
    let amounts: Vec<String> = (100..100 + MANY)
        .map(|cents| format!("{}.{:02}", cents / 100, cents % 100))
        .collect();
    let line = format!("Total: {}\n", amounts.join(" "));
    let located = locate_fields(&text_document(&line), &four_fields());
    let total = located.iter().find(|f| f.key == "total").unwrap();
    let values: Vec<_> = total.candidates.iter().map(|c| &c.value).collect();
    // Each word between the label and an amount costs it 3.
    assert_eq!(
        values,
        [
            &json!(1.0),
            &json!(1.01),
            &json!(1.02),
            &json!(1.03),
            &json!(1.04)
        ]
    );
    let scores: Vec<_> = total.candidates.iter().map(|c| c.score).collect();
    assert_eq!(scores, [108, 105, 102, 99, 96]);
}
