//! The names of an invoice's parties: the seller and the buyer.

use serde_json::json;

use super::{best, scanned_document, text_document};
use crate::locate_fields;

fn parties() -> serde_json::Value {
    json!({"type": "object", "properties": {
        "seller_name": {"type": "string", "description": "The company or person who issued the invoice and is to be paid."},
        "buyer_name": {"type": ["string", "null"], "description": "The company or person billed (\"Bill to\"); null when absent."}
    }})
}

#[test]
fn a_letters_sender_line_names_the_seller_and_the_line_below_it_the_buyer() {
    let doc = text_document(
        "Bei Spiel GmbH ● Ecke 12 ● 12345 Stadthausen\nHerrn\nTheodor Est\nBahnstr. 42\n\
         88802 Spielkreis\nRechnung Nr. 42\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("Bei Spiel GmbH"));
    assert_eq!(best(&located, "buyer_name"), json!("Theodor Est"));
}

#[test]
fn a_sections_name_line_is_the_name_and_its_numbered_lines_are_passed_over() {
    let doc = text_document(
        "Verkäufer\nNummer: 549910\nName: Lieferant GmbH\nKäufer/Leistungsempfänger\n\
         Nummer: GE2020211\nName: Kunden AG Mitte\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("Lieferant GmbH"));
    assert_eq!(best(&located, "buyer_name"), json!("Kunden AG Mitte"));
}

#[test]
fn a_label_followed_by_a_legal_form_alone_is_the_name_itself() {
    let doc = text_document("Lieferant GmbH\nLieferantenstraße 20\n80333 München\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("Lieferant GmbH"));
}

#[test]
fn a_line_with_a_legal_form_at_the_top_is_the_seller_with_the_line_above_a_lone_form() {
    let doc = text_document(
        "tan woon yann\nPASARAYA BORONG PINTAR\nSDN BHD\n(CO.REG 123)\nTOTAL 12.00\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(
        best(&located, "seller_name"),
        json!("PASARAYA BORONG PINTAR SDN BHD")
    );
}

#[test]
fn numbers_headings_and_sentences_are_no_ones_name() {
    let doc = text_document("Käufer\nKundennummer GE2020211\nN° TVA client FR19787878784\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "buyer_name"), json!(null));
    // A label inside a sentence is followed by no name.
    let doc = text_document("Der Lieferant bleibt Eigentümer der Waren\nMusterlieferant GmbH\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("Musterlieferant GmbH"));
}

#[test]
fn on_a_scan_a_legal_form_misread_by_a_letter_beside_another_is_read_back() {
    let seller = |text: &str| {
        best(
            &locate_fields(&scanned_document(text), &parties()),
            "seller_name",
        )
    };
    assert_eq!(
        seller("SUN WONG KUT SON BHD\n(CO.REG 123)\nTOTAL 12.00\n"),
        json!("SUN WONG KUT SDN BHD")
    );
    // The second half misread ends the name all the same.
    assert_eq!(
        seller("timeless Kitchenette Sdn Bad\nCompany No 1174703-K\n"),
        json!("timeless Kitchenette Sdn Bhd")
    );
    // Typed text is as it is printed.
    let typed = text_document("SUN WONG KUT SON BHD\n(CO.REG 123)\n");
    assert_eq!(
        best(&locate_fields(&typed, &parties()), "seller_name"),
        json!("SUN WONG KUT SON BHD")
    );
}

#[test]
fn s_b_is_a_legal_form_and_its_line_the_seller() {
    let doc =
        text_document("Welcome\n99 SPEED MART S/B\nLOT P.T. 2811, JALAN ANGSA,\nTOTAL 12.00\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("99 SPEED MART S/B"));
}

#[test]
fn a_line_of_co_and_a_country_mark_before_the_legal_form_joins_the_line_above() {
    let doc = text_document("POPULAR BOOK\nCO. (M) SDN BHD\nNO 8 JALAN 1\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(
        best(&located, "seller_name"),
        json!("POPULAR BOOK CO. (M) SDN BHD")
    );
}

#[test]
fn the_first_line_is_the_seller_without_its_marks_and_a_title_is_not() {
    let seller = |text: &str| {
        best(
            &locate_fields(&scanned_document(text), &parties()),
            "seller_name",
        )
    };
    assert_eq!(
        seller("* THAI DELICIOUS RESTAURANT\nNO 5 JALAN 2\n"),
        json!("THAI DELICIOUS RESTAURANT")
    );
    assert_eq!(
        seller("TAX INVOICE\nDOMINO'S PIZZA\nNO 5 JALAN 2\n"),
        json!("DOMINO'S PIZZA")
    );
}

#[test]
fn a_heading_beside_another_columns_label_names_the_line_below_it() {
    let buyer = |text: &str| {
        best(
            &locate_fields(&scanned_document(text), &parties()),
            "buyer_name",
        )
    };
    assert_eq!(
        buyer("Rechnungsempfänger  Kundennummer GE2020211\nMuster AG Mitte  Beträge in EUR\n"),
        json!("Muster AG Mitte")
    );
    // A label the next label's words follow closely is one phrase
    // (`Customer VAT Number`), no heading; nor is a label a value follows.
    assert_eq!(
        buyer("Customer VAT Number ESA12345674\nIncoterms DELIVERED DUTY UNPAID\n"),
        json!(null)
    );
    assert_eq!(
        buyer("N° TVA client  FR19787878784\nDescription  Quantité\n"),
        json!(null)
    );
}

#[test]
fn the_buyers_value_is_never_the_sellers() {
    // Two headings side by side over the names: the buyer's heading reads
    // the first name below it, the seller's; its next candidate is the
    // billing address's name.
    let doc = scanned_document(
        "Verkäufer  Käufer\nHolzwerk Süd GmbH  Café Morgenrot\nRechnungsadresse\nCafé Morgenrot\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("Holzwerk Süd GmbH"));
    assert_eq!(best(&located, "buyer_name"), json!("Café Morgenrot"));
    // With no other candidate, the buyer has none.
    let doc = scanned_document("Verkäufer  Käufer\nHolzwerk Süd GmbH\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("Holzwerk Süd GmbH"));
    assert_eq!(best(&located, "buyer_name"), json!(null));
}

#[test]
fn a_label_word_printed_split_in_two_is_read_as_one() {
    // `Ver käufer:` is the seller's heading, not the buyer's `Käufer`.
    let doc = text_document(
        "Handelsrechnung Nr. 42\nVer käufer:\nTaxiunter nehmen TX GmbH\nLieferantenstraße 20\n\
         Käufer:\nTaxi-Gast AG Mitte\nKundenstraße 15\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(
        best(&located, "seller_name"),
        json!("Taxiunter nehmen TX GmbH")
    );
    assert_eq!(best(&located, "buyer_name"), json!("Taxi-Gast AG Mitte"));
}

#[test]
fn a_name_runs_on_to_the_next_line_that_ends_in_its_legal_form() {
    let doc = text_document(
        "Verkäufer:\nMVM Musterhafter\nVersicherungsverein Musterstadt a.G.\nMusterstr. 12\n\
         Käufer:\nMax Mustermann\nMusterstr. 11\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(
        best(&located, "seller_name"),
        json!("MVM Musterhafter Versicherungsverein Musterstadt a.G.")
    );
    assert_eq!(best(&located, "buyer_name"), json!("Max Mustermann"));
    // A name with its legal form on its own line ends there.
    let doc = text_document("Verkäufer:\nLieferant GmbH\nWerkstatt Nord GmbH\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "seller_name"), json!("Lieferant GmbH"));
}

#[test]
fn a_forms_name_box_under_the_buyers_heading_is_the_buyers_name() {
    // A Brazilian form: the heading names two roles, the box's captions
    // stand over the values, a column apart.
    let doc = scanned_document(
        "DESTINATÁRIO / REMETENTE\nNOME / RAZÃO SOCIAL    CNPJ / CPF    DATA DA EMISSÃO\n\
         Padaria Boa Massa Ltda    12.345.678/0001-95    02/03/2024\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(
        best(&located, "buyer_name"),
        json!("Padaria Boa Massa Ltda")
    );
    // A `Name:` caption before the name on its line, as before.
    let doc = text_document("Bill to\nCompany name: Harbour Tools Ltd\n");
    let located = locate_fields(&doc, &parties());
    assert_eq!(best(&located, "buyer_name"), json!("Harbour Tools Ltd"));
}

#[test]
fn a_name_cut_at_its_columns_edge_is_its_longer_reading() {
    // A receipt stub's recipient, cut where the stub's column ends; the
    // buyer's box below prints the whole name.
    let doc = scanned_document(
        "DESTINATÁRIO: Cooperativa dos Produtores    NF-e\nde Leite do Vale - Rua Sete 40\n\
         DESTINATÁRIO / REMETENTE\nNOME / RAZÃO SOCIAL    CNPJ / CPF\n\
         Cooperativa dos Produtores de Leite do Vale    12.345.678/0001-95\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(
        best(&located, "buyer_name"),
        json!("Cooperativa dos Produtores de Leite do Vale")
    );
}

#[test]
fn a_heading_in_the_right_column_heads_the_name_below_it() {
    // The seller's and the buyer's blocks side by side, each under its
    // heading; below them a table row whose empty cells are dashes and
    // whose amount has four digits, which is no letter's sender line.
    let doc = scanned_document(
        "SPRZEDAWCA    NABYWCA\nElektrownia S.A.   F.H.U. Jan Kowalski\n\
         NIP: 7309436499   NIP: 1187654321\nFAKTURA VAT Nr: FA811/05/2025\n\
         Lp. Nazwa Ilość Cena Wartość\n1 Razem za energię - - 18,00 23\n\
         2 Razem za usługi - - 25,60 23\n",
    );
    let schema = json!({"type": "object", "properties": {
        "seller_name": {"type": "string", "description": "The seller's name"},
        "buyer_name": {"type": "string", "description": "The buyer's name"},
        "seller_vat_id": {"type": "string", "description": "The seller's VAT number"},
        "buyer_vat_id": {"type": "string", "description": "The buyer's VAT number"}
    }});
    let located = locate_fields(&doc, &schema);
    assert_eq!(best(&located, "seller_name"), json!("Elektrownia S.A."));
    assert_eq!(best(&located, "buyer_name"), json!("F.H.U. Jan Kowalski"));
    assert_eq!(best(&located, "seller_vat_id"), json!("7309436499"));
    assert_eq!(best(&located, "buyer_vat_id"), json!("1187654321"));
}

#[test]
fn an_address_block_lower_down_names_the_buyer() {
    // The line under the sender line is its phone and web address; the
    // addressee's window is lower, under the invoice's number.
    let doc = text_document(
        "Les Ateliers du Port SARL - 12 quai Ouest - 13002 Marseille - France\n\
         +33 4 00 00 00 00 - www.ateliers.example\nFacture FA-2024-0042\n\
         Épicerie des Collines\n8 avenue Verte\n33000 Bordeaux\nDate de facture 02/03/2024\n",
    );
    let located = locate_fields(&doc, &parties());
    assert_eq!(
        best(&located, "seller_name"),
        json!("Les Ateliers du Port SARL")
    );
    assert_eq!(best(&located, "buyer_name"), json!("Épicerie des Collines"));
}
