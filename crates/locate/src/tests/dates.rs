//! A receipt's date as OCR misreads it: read back only where no date on
//! the page was read as printed.

use serde_json::{Value, json};

use super::{best, four_fields, scanned_document, text_document};
use crate::locate_fields;

fn date(text: &str) -> Value {
    best(
        &locate_fields(&scanned_document(text), &four_fields()),
        "date",
    )
}

#[test]
fn a_day_month_or_year_misread_into_no_date_is_read_back() {
    // A 0 read as 6 (month 62, year 2618) or as 9 (day 92).
    assert_eq!(
        date("Date: 19/62/2018 16:45\nTotal 5.00\n"),
        json!("2018-02-19")
    );
    assert_eq!(
        date("12-02-2618 11:34:45 AM\nTotal 5.00\n"),
        json!("2018-02-12")
    );
    assert_eq!(
        date("Doc No: CS00183546 Date: 92/02/2018\nTotal 5.00\n"),
        json!("2018-02-02")
    );
    // A typed text's digits are the writer's: nothing is read back.
    let typed = locate_fields(
        &text_document("Date: 19/62/2018\nTotal 5.00\n"),
        &four_fields(),
    );
    assert_eq!(best(&typed, "date"), Value::Null);
}

#[test]
fn a_date_read_glued_to_its_time_is_the_date() {
    assert_eq!(
        date("Cash Bill 01-143008\nDate 09/01/20198:01:11PM\nTotal 31.00\n"),
        json!("2019-01-09")
    );
    // A typed text's words are the writer's: no date is cut out of them.
    let typed = locate_fields(
        &text_document("Date 09/01/20198:01:11PM\nTotal 31.00\n"),
        &four_fields(),
    );
    assert_eq!(best(&typed, "date"), Value::Null);
}

#[test]
fn a_date_read_as_printed_wins_over_a_misread_one_read_back() {
    // The receipt prints its date twice; OCR garbled the labelled one.
    assert_eq!(
        date("Date: 30/63/2017\nTotal 5.00\nDD: 30/08/2017 10:51\n"),
        json!("2017-08-30")
    );
    // A year misread (2620) beside a date read as printed.
    assert_eq!(
        date("18-01-2018 15:44:46\nTotal 5.00\nPoints expire 30/11/2620\n"),
        json!("2018-01-18")
    );
}
