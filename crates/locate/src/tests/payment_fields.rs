//! The fields of an invoice's payment part beyond the four: its tax, the
//! seller's VAT id, the IBAN and the due date.

use serde_json::json;

use super::{best, scanned_document, text_document};
use crate::locate_fields;

fn payment_fields() -> serde_json::Value {
    json!({"type": "object", "properties": {
        "tax": {"type": "number", "description": "The total VAT amount"},
        "seller_vat_id": {"type": "string", "description": "The seller's VAT identification number"},
        "iban": {"type": "string", "description": "The IBAN of the account to pay into"},
        "due_date": {"type": "string", "format": "date", "description": "The date the invoice is due for payment"}
    }})
}

/// A schema asking the buyer's VAT number alone.
fn buyer_vat_id() -> serde_json::Value {
    json!({"type": "object", "properties": {
        "buyer_vat_id": {"type": "string", "description": "The buyer's VAT number"}
    }})
}

#[test]
fn the_tax_of_a_tax_line_is_the_amount_that_is_its_rate_of_another() {
    let doc =
        text_document("Rechnungssumme Netto 198,00\nSteuerbasisbetrag USt. 19% 198,00 37,62\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "tax"), json!(37.62));
}

#[test]
fn a_tax_amount_is_found_by_its_labels_in_other_words() {
    let doc =
        text_document("Rechnungssumme ohne USt. 177,49\nSteuerbetrag 20,16\nBruttosumme 197,65\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "tax"), json!(20.16));
}

#[test]
fn a_vat_id_of_its_countrys_shape_wins_over_a_national_tax_number() {
    let doc = text_document("Steuernummer: 201/113/40209\nUSt.-Id.-Nr.: DE123456789\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "seller_vat_id"), json!("DE123456789"));
    // The label written as one word.
    let doc = text_document("BLZ: 700 901 00 USt.-Identnr.: DE136695976\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "seller_vat_id"), json!("DE136695976"));
}

#[test]
fn an_iban_printed_in_groups_is_given_without_spaces_and_never_one_group() {
    let doc = text_document(
        "IBAN : FR20 1242 1242 1242 1242 1242 124 - BIC : FIDCFR21XXX - Banque : Fiducial\n",
    );
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "iban"), json!("FR2012421242124212421242124"));
    let doc = text_document("IBAN-Nr.: DE08 7009 0100 1234 5678 90\nBIC: GENODEF1M04\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "iban"), json!("DE08700901001234567890"));
}

#[test]
fn a_due_date_needs_its_label_and_an_unlabelled_date_is_none() {
    let doc = text_document("Rechnung Nr. 42 vom 03.10.2018\nSumme 12,00\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "due_date"), json!(null));
    let doc = text_document("Date de facture 13/11/2017\nDate d'échéance 13/12/2017\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "due_date"), json!("2017-12-13"));
}

#[test]
fn the_tax_is_the_amount_that_is_the_total_less_the_net() {
    let doc = text_document(
        "Umsatzsteuer (S) 22,00 7 1,54\nPositionssumme 22,00\nRechnungssumme ohne USt. 22,00\n\
         Steuerbetrag 1,54\nBruttosumme 23,54\n",
    );
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "tax"), json!(1.54));
}

#[test]
fn the_customers_vat_number_is_the_buyers_and_a_vat_numbers_shape_finds_the_sellers() {
    let doc = text_document(
        "TVA : FR11999999998 - SIRET : 99999999800010\nFacture FA-2017-0010\n\
         N° TVA client FR19787878784\n",
    );
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "seller_vat_id"), json!("FR11999999998"));
    let located = locate_fields(&doc, &buyer_vat_id());
    assert_eq!(best(&located, "buyer_vat_id"), json!("FR19787878784"));
}

#[test]
fn a_net_labelled_as_without_ust_is_the_net() {
    let schema = json!({"type": "object", "properties": {
        "subtotal": {"type": ["number", "null"], "description": "The total before tax"}
    }});
    let doc = text_document(
        "Rechnungssumme Netto (excl. USt.) 198,00\nSteuerbasisbetrag USt. 19% 198,00 37,62\n\
         Rechnungssumme Brutto (inkl. USt.) 235,62\n",
    );
    let located = locate_fields(&doc, &schema);
    assert_eq!(best(&located, "subtotal"), json!(198.0));
}

#[test]
fn payment_terms_in_words_give_the_due_date_and_not_the_discounts() {
    let doc = text_document(
        "Rechnung Nr. 7 vom 05.06.2013\nZahlbar innerhalb 30 Tagen netto bis 04.07.2013, 3% Skonto \
         innerhalb 10 Tagen bis 15.06.2013\n",
    );
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "due_date"), json!("2013-07-04"));
    // The sentence's full stop after the year.
    let doc =
        text_document("Rechnung Nr. 7 vom 13.06.2015\nBitte überweisen Sie bis zum 04.07.2015.\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "due_date"), json!("2015-07-04"));
    // To remit is to pay.
    let doc = text_document("Invoice 508 of 2020-11-21\nPlease remit until 2020-12-12.\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "due_date"), json!("2020-12-12"));
}

#[test]
fn a_tax_ids_number_is_no_tax_amount_and_a_vat_total_is() {
    let doc = text_document("GST No. : 000584089600\nGST 6% : 4.13\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "tax"), json!(4.13));
    let doc =
        text_document("Net total: 496.00\nAmount Product VAT Price Total\nVAT total: 75.04\n");
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "tax"), json!(75.04));
}

#[test]
fn a_net_total_is_the_net() {
    let schema = json!({"type": "object", "properties": {
        "subtotal": {"type": "number", "description": "The net amount before tax"}
    }});
    let doc = text_document("Net total: 496.00 €\nVAT total: 75.04 €\nDue payable: 571.04 €\n");
    assert_eq!(
        best(&locate_fields(&doc, &schema), "subtotal"),
        json!(496.0)
    );
}

#[test]
fn the_tax_in_total_and_a_hyphenated_tax_amount_are_the_tax() {
    let doc = text_document(
        "Menge Produkt USt. Preis Gesamtbetrag\n7% 160,00 € 160,00 €\nNettobetrag: 496,00 €\n\
         USt. Gesamt: 75,04 €\nGesamtbetrag: 571,04 €\n",
    );
    assert_eq!(
        best(&locate_fields(&doc, &payment_fields()), "tax"),
        json!(75.04)
    );
}

#[test]
fn a_rates_label_governs_no_amount() {
    // Under its column's header, and after it on its line.
    let doc = text_document(
        "Transportkosten : Frachtbetrag: 15,00, MwSt.-% 19,0\n\
         Nettobetrag MwSt-Betrag MwSt-% Endbetrag\n1056,05 200,65 19,0 1256,70\n",
    );
    assert_eq!(
        best(&locate_fields(&doc, &payment_fields()), "tax"),
        json!(200.65)
    );
    let doc = text_document("Netto MwSt-% MwSt-Betrag\n40,00 19,00 7,60\n");
    assert_eq!(
        best(&locate_fields(&doc, &payment_fields()), "tax"),
        json!(7.6)
    );
}

#[test]
fn a_tax_id_under_the_buyers_heading_is_the_buyers() {
    // A receipt stub first, its recipient's address running on to the
    // next line's number; then the seller's box, its `CNPJ / CPF` caption
    // over its number; then the buyer's, under the buyer's heading.
    let doc = scanned_document(
        "RECEBEMOS DE Ferragens Estrela Ltda    DESTINATÁRIO: Padaria Boa Massa Ltda\n\
         Rua das Flores 12, São Paulo, CPF: 123.456.789-09\n\
         Ferragens Estrela Ltda\nINSCRIÇÃO ESTADUAL    CNPJ / CPF\n\
         110042490114    45.723.174/0001-10\nDESTINATÁRIO / REMETENTE\n\
         NOME / RAZÃO SOCIAL    CNPJ / CPF\nPadaria Boa Massa Ltda    123.456.789-09\n",
    );
    let located = locate_fields(&doc, &payment_fields());
    assert_eq!(best(&located, "seller_vat_id"), json!("45.723.174/0001-10"));
    let located = locate_fields(&doc, &buyer_vat_id());
    assert_eq!(best(&located, "buyer_vat_id"), json!("123.456.789-09"));
}
