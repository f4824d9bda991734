//! The country a document is from, as its own words say, for the currency
//! it does not print. A shop's receipt or a firm's invoice names its town
//! and state, or its company's legal form, and seldom its country or its
//! money: at home, prices need no currency. Where one is printed, it is
//! often a bare `$`, the sign of some twenty currencies (the Malaysian
//! ringgit was written `$` and `M$` until 1993, and tills still print it).
//!
//! Four kinds of words say where a document is from: a country's name (in
//! English and its own languages), a legal form only that country's
//! companies take (`Sdn Bhd`, `Pty Ltd`, `GmbH`), a state or province of a
//! country whose domestic addresses name it instead of the country, and
//! the street and town words of Malay addresses, which count for Malaysia
//! and Indonesia both. No town names one: every country is listed to the
//! same depth, and a town list has no end (the table's header says why). The name of a
//! tax only some countries levy (`GST`) counts for each of them: alone it
//! names no one country, but it parts Malaysia from Indonesia, and a
//! legal form from a country named in a shop's brand (`DAISO JAPAN`). On a scan, a
//! word of six letters or more one letter off exactly one place's name
//! is that name (`SEKSYEI`). Each phrase found votes for its
//! country, a phrase inside a longer one not at all; the country with the
//! most votes is the document's, when no other has as many.
//!
//! The countries and their words are data: `crates/locate/languages/
//! countries.toml`, each country's names, legal forms, taxes, regions and
//! address words listed apart.

use std::ops::Range;
use std::sync::OnceLock;

use foldhash::HashMap;

use super::labels::{FoldedPages, FoldedText, fold_word, within_one_edit};
use super::phrases::drop_inside_longer;
use crate::languages::countries;
use crate::pages::SearchPage;

/// The country a document is from, and the first place that says so.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct HomeCountry {
    pub currency: &'static str,
    pub dollar: bool,
    pub page: usize,
    pub words: Range<usize>,
}

/// The country the document's words name most, more often than any
/// other; `None` when none is named, or two as often.
pub(super) fn home_country(pages: &[SearchPage], folded: &FoldedPages) -> Option<HomeCountry> {
    let countries = countries();
    let mut votes = vec![0usize; countries.len()];
    let mut first: Vec<Option<(usize, Range<usize>)>> = vec![None; countries.len()];
    for (p, page) in pages.iter().enumerate() {
        let words = &folded.0[p];
        for line in &page.lines {
            let mut found = on_line(page, words, line.clone());
            found.dedup();
            for (country, at) in found {
                votes[country] += 1;
                first[country].get_or_insert((p, at));
            }
        }
    }
    let best = (0..countries.len()).max_by_key(|&c| votes[c])?;
    let unrivalled = votes.iter().filter(|&&v| v == votes[best]).count() == 1;
    let (page, words) = first[best]
        .clone()
        .filter(|_| votes[best] > 0 && unrivalled)?;
    Some(HomeCountry {
        currency: &countries[best].currency,
        dollar: countries[best].dollar,
        page,
        words,
    })
}

/// Where the document says it is from a country whose money is `code`
/// (an ISO 4217 code): evidence for a currency no sign or code on the
/// page gives.
pub fn home_currency_place(pages: &[SearchPage], code: &str) -> Option<(usize, Range<usize>)> {
    // Evidence asks this of every text value it finds nowhere: fold the
    // pages only for a currency some country pays in.
    if !countries()
        .iter()
        .any(|c| c.currency.eq_ignore_ascii_case(code))
    {
        return None;
    }
    let text = FoldedText::new(pages);
    let home = home_country(pages, &FoldedPages::new(pages, &text))?;
    home.currency
        .eq_ignore_ascii_case(code)
        .then_some((home.page, home.words))
}

/// The countries named on one line, and where: each phrase at its place,
/// without those inside a longer one (`wales` in `New South Wales`).
fn on_line(page: &SearchPage, words: &[&str], line: Range<usize>) -> Vec<(usize, Range<usize>)> {
    let mut found: Vec<(usize, Range<usize>)> = Vec::new();
    for start in line.clone() {
        // A town and its state glued by a comma (`MASAI,JOHOR`).
        let text = &page.words[start].text;
        if text.contains(',') {
            for part in text.split(',').map(fold_word) {
                let one_word = phrase_table().get(part.as_str()).into_iter().flatten();
                for (_, country) in one_word.filter(|(phrase, _)| phrase.len() == 1) {
                    found.push((*country, start..start + 1));
                }
            }
        }
        let misread = || page.ocr.then(|| misread_place(words[start])).flatten();
        let Some(phrases) = phrase_table()
            .get(words[start])
            .or_else(|| phrase_table().get(misread()?))
        else {
            continue;
        };
        for (phrase, country) in phrases {
            let end = start + phrase.len();
            if end <= line.end && words[start + 1..end] == phrase[1..] {
                found.push((*country, start..end));
            }
        }
    }
    drop_inside_longer(&mut found, |(_, at)| at.clone());
    found
}

/// The one-word place name `word` is one letter off (see the module
/// docs), when exactly one is.
fn misread_place(word: &str) -> Option<&'static str> {
    if word.chars().count() < 6 || !word.chars().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let mut near = phrase_table()
        .iter()
        .filter(|(first, phrases)| {
            phrases.iter().any(|(p, _)| p.len() == 1)
                && first.len().abs_diff(word.len()) <= 1
                && within_one_edit(word.as_bytes(), first.as_bytes())
        })
        .map(|(first, _)| first.as_str());
    let one = near.next()?;
    near.next().is_none().then_some(one)
}

/// Folded phrases by their first word, each with its country's index.
type PhraseTable = HashMap<String, Vec<(Vec<String>, usize)>>;

/// Each country's phrases, folded as page words are, by their first word.
fn phrase_table() -> &'static PhraseTable {
    static TABLE: OnceLock<PhraseTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = PhraseTable::default();
        for (c, country) in countries().iter().enumerate() {
            for phrase in country.phrases() {
                let words: Vec<String> = phrase
                    .split_whitespace()
                    .map(fold_word)
                    .filter(|w| !w.is_empty())
                    .collect();
                if let Some(first) = words.first().cloned()
                    && !table
                        .get(&first)
                        .is_some_and(|ps| ps.contains(&(words.clone(), c)))
                {
                    table.entry(first).or_default().push((words, c));
                }
            }
        }
        table
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pages::search_pages;
    use sift_documents::{Content, Document, Kind};

    fn home(text: &str) -> Option<(&'static str, bool, String)> {
        let document = Document {
            path: "receipt.txt".into(),
            name: "receipt.txt".into(),
            kind: Kind::Text,
            content: Content::Text(text.into()),
            ocr: None,
            invoice_xml: None,
        };
        let pages = search_pages(&document);
        let text = FoldedText::new(&pages);
        let folded = FoldedPages::new(&pages, &text);
        let found = home_country(&pages, &folded)?;
        let words = &pages[found.page].words[found.words];
        let quote: Vec<&str> = words.iter().map(|w| &*w.text).collect();
        Some((found.currency, found.dollar, quote.join(" ")))
    }

    fn says(
        currency: &'static str,
        dollar: bool,
        quote: &str,
    ) -> Option<(&'static str, bool, String)> {
        Some((currency, dollar, quote.to_owned()))
    }

    #[test]
    fn a_document_is_from_the_country_its_words_name_most() {
        assert_eq!(
            home("KEDAI ABC SDN. BHD.\nJALAN 1, 43000 KAJANG, SELANGOR"),
            says("MYR", true, "SDN. BHD.")
        );
        assert_eq!(
            home("Muster GmbH\nHauptstr. 1, Berlin"),
            says("EUR", false, "GmbH")
        );
        // `Wales` inside `New South Wales` is no vote for Britain.
        assert_eq!(
            home("Acme Pty Ltd\n12 George St, Sydney, New South Wales"),
            says("AUD", true, "Pty Ltd")
        );
        // A state glued to its town by a comma; `Jalan` votes for Malaysia
        // and Indonesia both.
        assert_eq!(
            home("18, JALAN PERMAS 10/7\nMASAI,JOHOR"),
            says("MYR", true, "JALAN")
        );
        // Two phrases for Malaysia, one for Japan; one line names two for
        // Malaysia and one for Indonesia.
        assert_eq!(
            home("DAISO JAPAN\nDAISO SDN BHD\nPENANG"),
            says("MYR", true, "SDN BHD")
        );
        assert_eq!(
            home("No.1 Jalan 55 9/1, 47300 PJ, Selangor."),
            says("MYR", true, "Jalan")
        );
    }

    #[test]
    fn a_regions_name_says_where_a_document_is_from_and_a_scans_name_may_be_a_letter_off() {
        // `Jalan` alone ties Malaysia with Indonesia; the state decides.
        assert_eq!(
            home(
                "NO.2 JALAN PRIMA
40170 SHAH ALAM, SELANGOR"
            ),
            says("MYR", true, "JALAN")
        );
        assert_eq!(
            home("Av. Paulista 1000, São Paulo"),
            says("BRL", false, "São Paulo")
        );
        assert_eq!(
            home("200 Bay St, Toronto, Ontario"),
            says("CAD", true, "Ontario")
        );
        // Malay addresses' abbreviations: `JLN` ties as `Jalan` does,
        // `TMN` (Taman) is Malaysia's; `GST` alone names no one country.
        assert_eq!(
            home("NO.3, JLN MAWAR 2, TMN MAWAR\nGST NO: 000123456789"),
            says("MYR", true, "JLN")
        );
        // A town names no country: no country's list has towns.
        assert_eq!(home("NO.2 JALAN PRIMA\n40170 SHAH ALAM"), None);
        assert_eq!(home("12 Queen St, Auckland"), None);
        // On a scan, `SEKSYEI` is Seksyen; typed, it is no word of ours.
        let words = ["19", "JALAN", "MERANTI", "SEKSYEI", "7"];
        let page = |ocr| SearchPage {
            number: 1,
            words: words
                .iter()
                .map(|w| crate::pages::SearchWord {
                    text: std::sync::Arc::from(*w),
                    line: 0,
                    bbox: None,
                })
                .collect(),
            lines: std::iter::once(0..words.len()).collect(),
            ocr,
        };
        for (ocr, currency) in [(true, Some("MYR")), (false, None)] {
            let pages = vec![page(ocr)];
            let text = FoldedText::new(&pages);
            let found = home_country(&pages, &FoldedPages::new(&pages, &text));
            assert_eq!(found.map(|h| h.currency), currency, "ocr: {ocr}");
        }
    }

    #[test]
    fn a_taxs_name_votes_for_each_country_that_levies_it() {
        // `Jalan` ties Malaysia with Indonesia, which levies no GST.
        assert_eq!(
            home("NO.2-1-1 JALAN FITA PRIMA\nGST 6% 1.08"),
            says("MYR", true, "JALAN")
        );
        // A country in a shop's brand against a legal form: GST parts them.
        assert_eq!(
            home("DAISO JAPAN, IOI MALL\nBAIFU (M) Sdn Bhd\nGST ID : 001389649920"),
            says("MYR", true, "Sdn Bhd")
        );
        // GST alone names no one country.
        assert_eq!(home("Total incl. GST 12.00"), None);
    }

    #[test]
    fn no_country_when_none_is_named_or_two_are_as_often() {
        assert_eq!(home("Total 12.00\nThank you"), None);
        assert_eq!(home("Shipped from Germany\nto Canada"), None);
        assert_eq!(home("Jalan Sudirman 5, Jakarta"), None);
        // A word that only starts like a country's name is not its name.
        assert_eq!(home("Indianapolis Ukulele"), None);
    }
}
