use serde_json::json;
use sift_documents::PageWord;
use sift_locate::pages::search_pages;

use super::*;
use crate::evidence::tests::{one_page_pdf, text_document};

pub(super) fn schema() -> Value {
    json!({"type": "object", "properties": {"lines": {"type": "array", "items": {"type": "object", "properties": {
        "description": {"type": "string"},
        "quantity": {"type": ["number", "null"]},
        "unit_price": {"type": ["number", "null"]},
        "amount": {"type": ["number", "null"]}
    }}}}})
}

/// A text document's page: each line of `text` a line of words.
pub(super) fn pages(text: &str) -> Vec<SearchPage> {
    search_pages(&text_document(text))
}

/// Asserts that `text`'s page leaves `values` as the model wrote them.
fn assert_left_as_written(text: &str, values: Value) {
    let mut after = values.clone();
    assert_eq!(
        complete_lines(&schema(), &mut after, &pages(text)),
        Vec::<String>::new(),
        "{text}"
    );
    assert_eq!(after, values, "{text}");
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
    assert_left_as_written(
        "Kunstrasen 3 4,00 10,00\nPfand 2,77 55,40\nRow 20\nTee 1,00\n",
        json!({"lines": [
            {"description": "Kunstrasen", "quantity": 3, "unit_price": 4.0, "amount": null},
            {"description": "Pfand", "quantity": null, "unit_price": 2.77, "amount": 55.4},
            {"description": "Tee", "quantity": null, "unit_price": 1.0, "amount": null}
        ]}),
    );
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
    let page = search_pages(&one_page_pdf(text.into(), lines));
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

/// A table whose cells are two lines high prints a line's amount on the
/// cell's second line, a row below its quantity and price: the amount is
/// worked out there. A quantity is not (see the test above: a small
/// number a row away is too often another line's).
#[test]
fn an_amount_is_found_on_the_row_below_its_quantity_and_price() {
    let page = pages(
        "KR3M Kunstrasen 3,3333 3 m² 19 %\n\
         4012345001235 10,00\n\
         SFK5 Schweinesteak 5,5000 1 kg 7 %\n\
         4000050986428 5,50\n",
    );
    let mut values = json!({"lines": [
        {"description": "Kunstrasen", "quantity": 3, "unit_price": 3.3333, "amount": 19},
        {"description": "Schweinesteak", "quantity": 1, "unit_price": 5.5, "amount": 5}
    ]});
    let filled = complete_lines(&schema(), &mut values, &page);
    assert_eq!(filled, ["lines[0].amount", "lines[1].amount"]);
    assert_eq!(values["lines"][0]["amount"], json!(10.0));
    assert_eq!(values["lines"][1]["amount"], json!(5.5));
}

/// The model took the tax rate (19 %) for the price and multiplied it
/// out: its numbers agree with each other but the page does not print
/// them. The row printing the description's words prints none either;
/// the row above prints one quantity, price and amount that multiply
/// out, and the model's quantity says which factor is the quantity.
#[test]
fn a_line_the_page_does_not_print_is_read_again_around_its_description() {
    let page = pages(
        "Kunstrasen 3,33 3 m² 19 % VAT 10,00\n\
         KR3M grün 3m breit\n\
         Bruttopreis : 4,00 Abschlag : 0,67\n",
    );
    let mut values = json!({"lines": [
        {"description": "grün 3m breit", "quantity": 3, "unit_price": 19, "amount": 57}
    ]});
    let filled = complete_lines(&schema(), &mut values, &page);
    assert_eq!(filled, ["lines[0].unit_price", "lines[0].amount"]);
    assert_eq!(
        values["lines"][0],
        json!({"description": "grün 3m breit", "quantity": 3, "unit_price": 3.33, "amount": 10.0})
    );
}

/// Where none of the model's numbers is printed with the line, the
/// lines it got right show which column is the quantity's; the numbers
/// inside a description (`3 x 20`) and a percentage are no line's.
#[test]
fn the_quantity_is_told_from_the_price_by_the_pages_own_columns() {
    let page = pages(
        "4123456000014 ZS997 100,0000 Stk. 1 1,0000 19,0 100,00\n\
         Zitronensäure 100ml\n\
         4100130013294 2031 15,0000 Stk. 20 12,0000 19,0 180,00\n\
         K4321 Bierbrau Pils 20/0500\n\
         EAN-VKE: 4100130913297 Verpackung: Kiste\n\
         4123456000038 MP107 2,0000 Stk. 1 29,1000 7,0 58,20\n\
         ZUGFeRD Mischpalette Joghurt Karton 3 x 20\n\
         Artikelrabatt 1: 3,00% Basis: 60,00 € Rabatt: -1,80 €\n",
    );
    let mut values = json!({"lines": [
        {"description": "Zitronensäure 100ml", "quantity": 100, "unit_price": 1.0, "amount": 100.0},
        {"description": "Bierbrau Pils 20/0500", "quantity": 1, "unit_price": 30.0, "amount": 30.0},
        {"description": "Mischpalette Joghurt Karton 3 x 20", "quantity": 1, "unit_price": 30.0, "amount": 30.0}
    ]});
    let filled = complete_lines(&schema(), &mut values, &page);
    assert_eq!(
        filled,
        [
            "lines[1].quantity",
            "lines[1].unit_price",
            "lines[1].amount",
            "lines[2].quantity",
            "lines[2].unit_price",
            "lines[2].amount"
        ]
    );
    let numbers =
        |line: &Value| [&line["quantity"], &line["unit_price"], &line["amount"]].map(Value::clone);
    assert_eq!(
        numbers(&values["lines"][0]),
        [json!(100), json!(1.0), json!(100.0)]
    );
    assert_eq!(
        numbers(&values["lines"][1]),
        [json!(15.0), json!(12.0), json!(180.0)]
    );
    assert_eq!(
        numbers(&values["lines"][2]),
        [json!(2.0), json!(29.1), json!(58.2)]
    );
}

/// Nothing is read again where the description's row prints two
/// different lines, where neither the model's numbers nor a line printed
/// as given tell the quantity from the price, or where no row prints the
/// description.
#[test]
fn a_line_is_not_read_again_where_the_page_does_not_settle_it() {
    let cases = [
        ("Widget 2 5,00 10,00 3 4,00 12,00\n", "Widget"),
        ("Gadget\n7,00 3,00 21,00\n", "Gadget"),
        ("Sprocket\n7,00 3,00 21,00\n", "Gear"),
    ];
    for (text, description) in cases {
        assert_left_as_written(
            text,
            json!({"lines": [
                {"description": description, "quantity": 1, "unit_price": 9.0, "amount": 9.0}
            ]}),
        );
    }
    // The same Gadget, once a line printed as given shows the quantity's
    // column left of the price's, is read again.
    let page = pages("Bolt 4 2,50 10,00\nThank you\nGadget\n7,00 3,00 21,00\n");
    let mut values = json!({"lines": [
        {"description": "Bolt", "quantity": 4, "unit_price": 2.5, "amount": 10.0},
        {"description": "Gadget", "quantity": 1, "unit_price": 9.0, "amount": 9.0}
    ]});
    complete_lines(&schema(), &mut values, &page);
    assert_eq!(
        values["lines"][1],
        json!({"description": "Gadget", "quantity": 7.0, "unit_price": 3.0, "amount": 21.0})
    );
}

/// A line with a discount (20 × 4.55 less 10% is 81.90) prints numbers
/// that do not multiply out on its own row: it is left as the model wrote
/// it, not given the next line's numbers; so is a row of the totals the
/// model listed as an item.
#[test]
fn a_row_that_prints_numbers_is_its_lines_own() {
    assert_left_as_written(
        "Nougat de l'Abbaye 250g 20 Unit(s) 4,55 € 10% 81,90 €\n\
         Biscuits aux raisins 300g 15 Unit(s) 3,20 € 48,00 €\n\
         Huile d'olive 25 Liter(s) 19,80 € 495,00 €\n\
         Taxe Base Montant Total HT 624,90 €\n",
        json!({"lines": [
            {"description": "Nougat de l'Abbaye", "quantity": 20, "unit_price": 4.55, "amount": 81.9},
            {"description": "Biscuits aux raisins", "quantity": 15, "unit_price": 3.2, "amount": 48.0},
            {"description": "Huile d'olive", "quantity": 25, "unit_price": 19.8, "amount": 495.0},
            {"description": "Taxe", "quantity": null, "unit_price": null, "amount": 624.9}
        ]}),
    );
}

/// A row that prints a quantity, price and amount that multiply out is a
/// line of the table: one the model left out is added where the page
/// prints it, its description the row's words; a second copy of a line
/// the model wrote in its place is dropped.
#[test]
fn a_line_the_model_left_out_is_taken_from_the_pages_table() {
    let page = pages(
        "Pos Description Qty Price Amount\n\
         1 TGA Obermonteur/Monteur 3,00 h 43,20 129,60\n\
         2 Beamer-Deckenhalterung 1,00 Stk 122,50 122,50\n\
         Net 252,10\n",
    );
    let mut values = json!({"lines": [
        {"description": "Beamerhalterung", "quantity": 1, "unit_price": 122.5, "amount": 122.5},
        {"description": "Beamer-Deckenhalterung", "quantity": 1, "unit_price": 122.5, "amount": 122.5}
    ]});
    let filled = complete_lines(&schema(), &mut values, &page);
    assert_eq!(
        filled,
        [
            "lines[0].description",
            "lines[0].quantity",
            "lines[0].unit_price",
            "lines[0].amount"
        ]
    );
    assert_eq!(
        values["lines"],
        json!([
            {"description": "TGA Obermonteur/Monteur", "quantity": 3.0, "unit_price": 43.2, "amount": 129.6},
            {"description": "Beamer-Deckenhalterung", "quantity": 1, "unit_price": 122.5, "amount": 122.5}
        ])
    );
}

/// No line at all from the model (null, or the key left out): the
/// table's rows are the lines, each described by the words set on the
/// row below its article code, not by the unit between its numbers.
#[test]
fn with_no_lines_the_tables_rows_are_the_lines() {
    let text = "GTIN Art-Nr Menge Nettopreis Nettowert\n\
                4123456000014 WA997 10000,0000 KWh 0,0520 520,00\n\
                Wirkarbeit HT\n\
                2001015001325 FB05 3500,0000 Stk. 0,0105 36,75\n\
                K4322 FALTENBEUTEL 16X6X28 CM\n";
    let expected = json!([
        {"description": "Wirkarbeit HT", "quantity": 10000.0, "unit_price": 0.052, "amount": 520.0},
        {"description": "K4322 FALTENBEUTEL 16X6X28 CM", "quantity": 3500.0, "unit_price": 0.0105, "amount": 36.75}
    ]);
    for mut values in [json!({"lines": null}), json!({"total": 556.75})] {
        let filled = complete_lines(&schema(), &mut values, &pages(text));
        assert_eq!(filled.len(), 8, "{filled:?}");
        assert_eq!(values["lines"], expected);
    }
}

/// A line the model wrote with a unit for its description (`20 Stk`),
/// or with numbers the page does not print but its amount, is the row
/// that prints it: its numbers and description are the row's. The
/// quantity is told from the price by the page's column order.
#[test]
fn a_misdescribed_line_takes_its_rows_words() {
    let page = pages(
        "1 Kunstrasen 3,33 3 m² 10,00\n\
         2 Schweinesteak 5,50 5 kg 27,50\n\
         4 Pfand 2,77 20 Stk 19 % VAT 55,40\n",
    );
    let mut values = json!({"lines": [
        {"description": "Kunstrasen", "quantity": 3, "unit_price": 3.33, "amount": 10.0},
        {"description": "5 kg", "quantity": 5, "unit_price": 5, "amount": 27.5},
        {"description": "20 Stk", "quantity": 20, "unit_price": 2.77, "amount": 55.4}
    ]});
    complete_lines(&schema(), &mut values, &page);
    assert_eq!(
        values["lines"],
        json!([
            {"description": "Kunstrasen", "quantity": 3, "unit_price": 3.33, "amount": 10.0},
            {"description": "Schweinesteak", "quantity": 5, "unit_price": 5.5, "amount": 27.5},
            {"description": "Pfand", "quantity": 20, "unit_price": 2.77, "amount": 55.4}
        ])
    );
}

/// What is no line of the table: a discount's row (`1:` labels a
/// number), a row whose factors have no decimals (`Karton 3 x 20`, its
/// amount a row below), a row of two readings, and a row with no words.
#[test]
fn rows_that_are_no_lines_are_not_taken() {
    assert_left_as_written(
        "4123456000038 MP107 2,0000 Stk. 29,1000 58,20\n\
         Mischpalette Joghurt Karton 3 x 20\n\
         Artikelrabatt 1: 3,00% Basis: 60,00 € Rabatt: -1,80 €\n\
         Widget 2 5,00 10,00 3 4,00 12,00\n\
         7,00 3,00 21,00\n",
        json!({"lines": [
            {"description": "Mischpalette Joghurt Karton 3 x 20", "quantity": 2, "unit_price": 29.1, "amount": 58.2}
        ]}),
    );
}
