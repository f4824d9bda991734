//! The locator's words, read from its data files: one per language in
//! `crates/locate/languages/` (`en.toml`, `de.toml`, `fr.toml`, `nl.toml`,
//! `es.toml`, `it.toml`, `pt.toml`, `pl.toml`, and `common.toml` for words
//! of no one language), and `countries.toml`, the countries a document may
//! be from. A
//! translator edits a file, not the code; `en.toml` says how one is
//! written.
//!
//! The files are built into the binary (`include_str!`) and parsed once,
//! when the locator first needs a word. Parsing at run time rather than
//! generating Rust in a `build.rs` keeps the build plain and the words in
//! one place; the files are a few kilobytes, read in well under a
//! millisecond once per process, and a file that does not parse fails
//! this module's tests (and the first document), never silently.
//!
//! Merged, each list holds every language's words once, in the files'
//! order: the locator uses them as sets (a phrase is found wherever it is
//! printed), so which file a word is in changes nothing it finds.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use serde::Deserialize;

use crate::concept::{CONCEPTS, Concept};

/// Each language's file, by its code, then the words of none.
const FILES: &[(&str, &str)] = &[
    ("en", include_str!("../languages/en.toml")),
    ("de", include_str!("../languages/de.toml")),
    ("fr", include_str!("../languages/fr.toml")),
    ("nl", include_str!("../languages/nl.toml")),
    ("es", include_str!("../languages/es.toml")),
    ("it", include_str!("../languages/it.toml")),
    ("pt", include_str!("../languages/pt.toml")),
    ("pl", include_str!("../languages/pl.toml")),
    ("common", include_str!("../languages/common.toml")),
];

const COUNTRIES: &str = include_str!("../languages/countries.toml");

/// One language's file (see `en.toml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguageFile {
    /// The language's name, for people.
    #[allow(dead_code)]
    language: String,
    #[serde(default)]
    labels: ConceptWords,
    /// Concepts the language has no labels for yet, each with the reason
    /// (read by the test that every language has every concept).
    #[serde(default)]
    #[allow(dead_code)]
    gaps: BTreeMap<String, String>,
    #[serde(default)]
    not_labels: NotLabels,
    #[serde(default)]
    words: Words,
    /// The month names, January first.
    #[serde(default)]
    months: Vec<Vec<String>>,
}

/// A word list per [`Concept`], named as [`Concept::key`] names it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct ConceptWords {
    total: Vec<String>,
    net: Vec<String>,
    tax: Vec<String>,
    document_number: Vec<String>,
    issue_date: Vec<String>,
    due_date: Vec<String>,
    currency: Vec<String>,
    issuer: Vec<String>,
    buyer: Vec<String>,
    tax_id: Vec<String>,
    iban: Vec<String>,
}

impl ConceptWords {
    fn of(&self, concept: Concept) -> &[String] {
        match concept {
            Concept::Total => &self.total,
            Concept::Net => &self.net,
            Concept::Tax => &self.tax,
            Concept::DocumentNumber => &self.document_number,
            Concept::IssueDate => &self.issue_date,
            Concept::DueDate => &self.due_date,
            Concept::Currency => &self.currency,
            Concept::Issuer => &self.issuer,
            Concept::Buyer => &self.buyer,
            Concept::TaxId => &self.tax_id,
            Concept::Iban => &self.iban,
        }
    }
}

/// Phrases that label a value as something else, besides the rival
/// concepts' labels.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct NotLabels {
    /// Not the issue date nor the due date: a delivery's, an order's.
    dates: Vec<String>,
    /// Not who is billed: where goods go.
    buyer: Vec<String>,
    /// Not the document's number: an order's, a customer's, a phone's.
    document_number: Vec<String>,
    /// Not the total: a discount, what was paid or given back, a count.
    total: Vec<String>,
    /// Not a tax id: a heading whose words hold a tax id's label
    /// (`Faktura VAT nr` holds `VAT nr`).
    tax_id: Vec<String>,
}

/// The other word lists of a language.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Words {
    rounding: Vec<String>,
    tendered: Vec<String>,
    change: Vec<String>,
    card: Vec<String>,
    pay: Vec<String>,
    by: Vec<String>,
    dated: Vec<String>,
    salutations: Vec<String>,
    name_captions: Vec<String>,
    legal_forms: Vec<String>,
    quantity_headings: Vec<String>,
}

/// Every language's words, merged (see the module docs).
pub(crate) struct Lexicon {
    /// Each concept's labels, by [`Concept`] as an index.
    labels: Vec<Vec<&'static str>>,
    not_dates: Vec<&'static str>,
    not_buyer: Vec<&'static str>,
    not_document_number: Vec<&'static str>,
    not_total: Vec<&'static str>,
    not_tax_id: Vec<&'static str>,
    /// The words of a rounding line.
    pub rounding: Vec<&'static str>,
    /// What labels the cash handed over.
    pub tendered: Vec<&'static str>,
    /// What labels the change given back.
    pub change: Vec<&'static str>,
    /// What labels a payment by card.
    pub card: Vec<&'static str>,
    /// Words of paying, in payment terms.
    pub pay: Vec<&'static str>,
    /// Words of "by" a date, in payment terms.
    pub by: Vec<&'static str>,
    /// Words linking the document's number to its date (`Rechnung Nr. 7
    /// vom`, `Facture n° 7 du`).
    pub dated: Vec<&'static str>,
    /// Words before a name in an address block (`Herrn`, `Firma`).
    pub salutations: Vec<&'static str>,
    /// A form's captions of a party's name (`name`, `razão social`).
    pub name_captions: Vec<&'static str>,
    /// Companies' legal forms, folded (`gmbh`, `sdn`, `bv`).
    pub legal_forms: Vec<&'static str>,
    /// A line-item table's headings over its quantities (`qty`, `menge`).
    pub quantity_headings: Vec<&'static str>,
    /// Each month's names with its number.
    pub months: Vec<(&'static str, u32)>,
}

impl Lexicon {
    /// A concept's labels in every language.
    pub fn labels(&self, concept: Concept) -> &[&'static str] {
        &self.labels[concept as usize]
    }

    /// The phrases besides its rivals' labels that label a value as not
    /// `concept`'s.
    pub fn not_labels(&self, concept: Concept) -> &[&'static str] {
        match concept {
            Concept::IssueDate | Concept::DueDate => &self.not_dates,
            Concept::Buyer => &self.not_buyer,
            Concept::DocumentNumber => &self.not_document_number,
            Concept::Total => &self.not_total,
            Concept::TaxId => &self.not_tax_id,
            _ => &[],
        }
    }
}

static FILES_READ: LazyLock<Vec<(&'static str, LanguageFile)>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|(code, text)| match toml::from_str(text) {
            Ok(file) => (*code, file),
            Err(e) => panic!("crates/locate/languages/{code}.toml: {e}"),
        })
        .collect()
});

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    let files = &*FILES_READ;
    let merged = |list: fn(&'static LanguageFile) -> &'static [String]| {
        let mut seen = HashSet::new();
        files
            .iter()
            .flat_map(|(_, file)| list(file))
            .map(String::as_str)
            .filter(|word| seen.insert(*word))
            .collect::<Vec<&'static str>>()
    };
    let labels = CONCEPTS
        .iter()
        .map(|&concept| {
            let mut seen = HashSet::new();
            files
                .iter()
                .flat_map(|(_, file)| file.labels.of(concept))
                .map(String::as_str)
                .filter(|word| seen.insert(*word))
                .collect()
        })
        .collect();
    let mut months = Vec::new();
    let mut seen = HashSet::new();
    for (_, file) in files {
        for (at, names) in file.months.iter().enumerate() {
            for name in names.iter().filter(|n| seen.insert(n.as_str())) {
                months.push((name.as_str(), at as u32 + 1));
            }
        }
    }
    Lexicon {
        labels,
        not_dates: merged(|f| &f.not_labels.dates),
        not_buyer: merged(|f| &f.not_labels.buyer),
        not_document_number: merged(|f| &f.not_labels.document_number),
        not_total: merged(|f| &f.not_labels.total),
        not_tax_id: merged(|f| &f.not_labels.tax_id),
        rounding: merged(|f| &f.words.rounding),
        tendered: merged(|f| &f.words.tendered),
        change: merged(|f| &f.words.change),
        card: merged(|f| &f.words.card),
        pay: merged(|f| &f.words.pay),
        by: merged(|f| &f.words.by),
        dated: merged(|f| &f.words.dated),
        salutations: merged(|f| &f.words.salutations),
        name_captions: merged(|f| &f.words.name_captions),
        legal_forms: merged(|f| &f.words.legal_forms),
        quantity_headings: merged(|f| &f.words.quantity_headings),
        months,
    }
});

/// Every language's words, merged.
pub(crate) fn lexicon() -> &'static Lexicon {
    &LEXICON
}

/// A country of `countries.toml`: its money and the phrases that say a
/// document is from it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Country {
    /// The country, for people (and the tests' messages).
    #[allow(dead_code)]
    pub name: String,
    /// Its ISO 4217 code.
    pub currency: String,
    /// Its money is written with a bare `$` at home.
    pub dollar: bool,
    #[serde(default)]
    names: Vec<String>,
    #[serde(default)]
    legal_forms: Vec<String>,
    #[serde(default)]
    taxes: Vec<String>,
    #[serde(default)]
    regions: Vec<String>,
    #[serde(default)]
    address_words: Vec<String>,
}

impl Country {
    /// Every phrase that votes for the country, as printed.
    pub fn phrases(&self) -> impl Iterator<Item = &str> {
        [
            &self.names,
            &self.legal_forms,
            &self.taxes,
            &self.regions,
            &self.address_words,
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CountriesFile {
    country: Vec<Country>,
}

static COUNTRY_TABLE: LazyLock<Vec<Country>> =
    LazyLock::new(|| match toml::from_str::<CountriesFile>(COUNTRIES) {
        Ok(file) => file.country,
        Err(e) => panic!("crates/locate/languages/countries.toml: {e}"),
    });

/// The countries of `countries.toml`, in its order.
pub(crate) fn countries() -> &'static [Country] {
    &COUNTRY_TABLE
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every language's missing concepts, as `de: no labels for due_date`:
    /// a concept is there when the language's file or `common.toml` has
    /// labels for it, or the file names it under `[gaps]` with a reason.
    fn missing_concepts(files: &[(&str, LanguageFile)], common: &LanguageFile) -> Vec<String> {
        let mut missing = Vec::new();
        for (code, file) in files.iter().filter(|(code, _)| *code != "common") {
            for concept in CONCEPTS {
                let has = !file.labels.of(*concept).is_empty()
                    || !common.labels.of(*concept).is_empty()
                    || file
                        .gaps
                        .get(concept.key())
                        .is_some_and(|why| !why.trim().is_empty());
                if !has {
                    missing.push(format!("{code}: no labels for {}", concept.key()));
                }
            }
        }
        missing
    }

    fn common() -> &'static LanguageFile {
        &FILES_READ
            .iter()
            .find(|(code, _)| *code == "common")
            .unwrap()
            .1
    }

    #[test]
    fn every_language_file_has_every_concept() {
        let missing = missing_concepts(&FILES_READ, common());
        assert!(missing.is_empty(), "{}", missing.join("; "));
    }

    #[test]
    fn a_language_without_a_concepts_labels_is_named_with_the_concept() {
        let file: LanguageFile = toml::from_str(FILES[1].1).unwrap();
        let mut file = ("de", file);
        file.1.labels.due_date.clear();
        assert_eq!(
            missing_concepts(&[file], common()),
            ["de: no labels for due_date"]
        );
    }

    #[test]
    fn a_gap_names_a_concept_and_says_why() {
        for (code, file) in FILES_READ.iter() {
            for (key, why) in &file.gaps {
                assert!(
                    CONCEPTS.iter().any(|c| c.key() == key),
                    "{code}: [gaps] names {key}, no concept"
                );
                assert!(
                    !why.trim().is_empty(),
                    "{code}: the gap in {key} says no why"
                );
            }
        }
    }

    #[test]
    fn a_files_not_labels_of_a_tax_id_are_read() {
        let file: LanguageFile =
            toml::from_str("language = \"x\"\n[not_labels]\ntax_id = [\"invoice vat no\"]\n")
                .unwrap();
        assert_eq!(file.not_labels.tax_id, ["invoice vat no"]);
    }

    #[test]
    fn every_month_has_its_names_and_a_name_one_month() {
        for (code, file) in FILES_READ.iter() {
            assert!(
                file.months.is_empty() || file.months.len() == 12,
                "{code}: {} months",
                file.months.len()
            );
        }
        let mut month_of = BTreeMap::new();
        for (_, file) in FILES_READ.iter() {
            for (at, names) in file.months.iter().enumerate() {
                for name in names {
                    let month = *month_of.entry(name.as_str()).or_insert(at);
                    assert_eq!(month, at, "{name} is two months");
                }
            }
        }
        for month in 1..=12 {
            assert!(lexicon().months.iter().any(|(_, m)| *m == month), "{month}");
        }
    }

    #[test]
    fn every_word_is_written_as_the_locator_folds_it() {
        let lexicon = lexicon();
        let concept_words = CONCEPTS.iter().flat_map(|c| {
            let own = lexicon.labels(*c).iter();
            own.chain(lexicon.not_labels(*c))
        });
        for word in concept_words
            .chain(&lexicon.legal_forms)
            .chain(&lexicon.name_captions)
            .chain(&lexicon.quantity_headings)
            .chain(&lexicon.rounding)
            .chain(&lexicon.dated)
        {
            assert!(
                !word.chars().any(char::is_uppercase) && word.trim() == *word,
                "{word:?}"
            );
        }
    }

    #[test]
    fn every_file_of_the_folder_is_read() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/languages");
        for entry in std::fs::read_dir(folder).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let Some(code) = name.strip_suffix(".toml") else {
                continue;
            };
            assert!(
                code == "countries" || FILES.iter().any(|(c, _)| *c == code),
                "languages/{name} is not in languages.rs's FILES"
            );
        }
    }

    #[test]
    fn every_country_has_a_currency_and_a_name() {
        for country in countries() {
            assert_eq!(country.currency.len(), 3, "{}", country.name);
            assert!(!country.names.is_empty(), "{}", country.name);
        }
    }
}
