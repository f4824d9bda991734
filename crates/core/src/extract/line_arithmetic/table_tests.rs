//! The page's table read by its headings and its rows' words: which
//! factor is the quantity, and what describes a line.

use serde_json::json;
use sift_documents::PageWord;
use sift_locate::pages::{SearchPage, search_pages};

use super::complete_lines;
use super::tests::{pages, schema};
use crate::evidence::tests::one_page_pdf;

/// A page of boxed words: each row a list of (word, left), a row 12
/// points below the one before; every word 30 wide and 8 high.
fn boxed_page(rows: &[&[(&str, f32)]]) -> Vec<SearchPage> {
    let lines: Vec<Vec<PageWord>> = rows
        .iter()
        .enumerate()
        .map(|(at, row)| {
            row.iter()
                .map(|&(text, left)| PageWord {
                    text: text.into(),
                    left,
                    top: 100.0 + 12.0 * at as f32,
                    width: 30.0,
                    height: 8.0,
                    confidence: 100.0,
                })
                .collect()
        })
        .collect();
    let text = rows
        .iter()
        .map(|row| row.iter().map(|(t, _)| *t).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n");
    search_pages(&one_page_pdf(text, lines))
}

const HEADINGS: &[(&str, f32)] = &[
    ("Pos", 10.0),
    ("Beschreibung", 45.0),
    ("Nettopreis", 200.0),
    ("Menge", 260.0),
    ("Einheit", 300.0),
    ("Nettobetrag", 400.0),
];

/// Where both factors are whole numbers (`26,00` and `10`), the heading
/// over the quantities says which is the quantity: a line the model
/// wrote the other way round is turned, and a row it left out is added
/// the heading's way. A row of a heading's word and a digit (`Anzahl
/// Packstücke: 1`) is no heading. Without the headings, the model's line
/// stands as it wrote it.
#[test]
fn the_heading_over_the_quantities_tells_the_quantity() {
    let rows: [&[(&str, f32)]; 4] = [
        &[
            ("1", 10.0),
            ("Physiotherapie", 45.0),
            ("26,00", 200.0),
            ("10", 260.0),
            ("Stk", 300.0),
            ("260,00", 400.0),
        ],
        &[("Anzahl", 10.0), ("Packstücke:", 45.0), ("1", 120.0)],
        &[
            ("2", 10.0),
            ("Hausbesuch", 45.0),
            ("12,00", 200.0),
            ("10", 260.0),
            ("Stk", 300.0),
            ("120,00", 400.0),
        ],
        &[
            ("3", 10.0),
            ("Tee", 45.0),
            ("5,00", 200.0),
            ("6", 260.0),
            ("Stk", 300.0),
            ("30,00", 400.0),
        ],
    ];
    let written = json!({"lines": [
        {"description": "Physiotherapie", "quantity": 26, "unit_price": 10, "amount": 260}
    ]});
    let mut headed: Vec<&[(&str, f32)]> = vec![HEADINGS];
    headed.extend(rows);
    let mut values = written.clone();
    complete_lines(&schema(), &mut values, &boxed_page(&headed));
    assert_eq!(
        values["lines"],
        json!([
            {"description": "Physiotherapie", "quantity": 10.0, "unit_price": 26.0, "amount": 260},
            {"description": "Hausbesuch", "quantity": 10.0, "unit_price": 12.0, "amount": 120.0},
            {"description": "Tee", "quantity": 6.0, "unit_price": 5.0, "amount": 30.0}
        ])
    );
    let mut values = written.clone();
    complete_lines(&schema(), &mut values, &boxed_page(&rows));
    assert_eq!(values["lines"][0], written["lines"][0]);
}

/// A row's words before its numbers describe it without the references
/// printed first (an abbreviated label, or one followed by codes), while
/// a description's own colon stays (`Luftballon: Bunt`); an article code
/// printed there describes it rather than its unit (`Stk 0%`). A row that
/// prints its line twice (the position `1` times the price is the amount
/// too) is read from the factors nearest the amount.
#[test]
fn a_rows_description_leaves_out_its_references() {
    let page = boxed_page(&[
        HEADINGS,
        &[
            ("1", 10.0),
            ("Lieferung", 45.0),
            ("eines", 80.0),
            ("205,0000", 200.0),
            ("1", 260.0),
            ("Stk", 300.0),
            ("205,00", 400.0),
        ],
        &[("Art-Nr-Lieferant:", 10.0), ("Solarziegels", 45.0)],
        &[
            ("Art-Nr-Kunde:", 10.0),
            ("SE_KR", 45.0),
            ("Kunstrasen", 80.0),
            ("grün", 115.0),
            ("3m", 150.0),
            ("3,3333", 200.0),
            ("3", 260.0),
            ("m²", 300.0),
            ("10,00", 400.0),
        ],
        &[
            ("Art-Nr-Kunde:", 10.0),
            ("Laser", 45.0),
            ("printer", 80.0),
            ("B/W", 115.0),
            ("300,00", 200.0),
            ("2", 260.0),
            ("Stk", 300.0),
            ("600,00", 400.0),
        ],
        &[
            ("Luftballon:", 10.0),
            ("Bunt", 45.0),
            ("0,79", 200.0),
            ("400", 260.0),
            ("Stk", 300.0),
            ("316,00", 400.0),
        ],
        &[
            ("000001", 10.0),
            ("TLA-LED-3XAAA", 45.0),
            ("46,50", 200.0),
            ("10", 260.0),
            ("Stk", 300.0),
            ("0%", 340.0),
            ("465,00", 400.0),
        ],
        &[("Art-Nr-Lieferant:", 10.0), ("S987654", 45.0)],
    ]);
    let mut values = json!({"lines": null});
    complete_lines(&schema(), &mut values, &page);
    assert_eq!(
        values["lines"],
        json!([
            {"description": "Lieferung eines", "quantity": 1.0, "unit_price": 205.0, "amount": 205.0},
            {"description": "Kunstrasen grün 3m", "quantity": 3.0, "unit_price": 3.3333, "amount": 10.0},
            {"description": "Laser printer B/W", "quantity": 2.0, "unit_price": 300.0, "amount": 600.0},
            {"description": "Luftballon: Bunt", "quantity": 400.0, "unit_price": 0.79, "amount": 316.0},
            {"description": "TLA-LED-3XAAA", "quantity": 10.0, "unit_price": 46.5, "amount": 465.0}
        ])
    );
}

/// A line the model described with a note printed away from its row
/// (`• Beschreibung: ...`, two rows below) takes the description its row
/// prints before its numbers; a description printed on the row beside
/// it stays the model's.
#[test]
fn a_line_described_by_a_note_away_from_its_row_takes_the_rows_words() {
    let page = pages(
        "1 Physiotherapie 26,00 10 Stk 260,00\n\
         Art-Nr-Lieferant: SE0815\n\
         Beschreibung: Behandlungen aufgrund der Verordnung\n\
         Hausbesuch am Montag\n\
         2 Besuch 12,00 10 Stk 120,00\n",
    );
    let mut values = json!({"lines": [
        {"description": "Behandlungen aufgrund der Verordnung", "quantity": 10, "unit_price": 26, "amount": 260},
        {"description": "Hausbesuch am Montag", "quantity": 10, "unit_price": 12, "amount": 120}
    ]});
    assert_eq!(
        complete_lines(&schema(), &mut values, &page),
        ["lines[0].description"]
    );
    assert_eq!(values["lines"][0]["description"], json!("Physiotherapie"));
    assert_eq!(
        values["lines"][1]["description"],
        json!("Hausbesuch am Montag")
    );
}
