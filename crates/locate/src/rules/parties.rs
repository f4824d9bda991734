//! The parties' rules. The names of a document's parties: who issued it and who it is
//! addressed to. A name has no type to find it by, so besides the labels
//! that govern it (`Seller: …`, `Bill to`, a `Verkäufer` section's
//! `Name:` line) the page's layout says it: a letter's sender line
//! (`Bei Spiel GmbH ● Ecke 12 ● 12345 Stadthausen`) names who sent it
//! and is followed by the addressee's block, and a company's legal form
//! (`GmbH`, `Ltd`, `Sdn Bhd`) marks a line at the top as the issuer's
//! name.

use std::ops::Range;

use crate::fields::{FieldSpec, ValueKind};
use crate::labels::{
    ABOVE, FoldedPages, Occurrence, SAME_LINE, fold_word, is_label_word, within_one_edit,
};
use crate::languages::lexicon;
use crate::lexicon::Concept;
use crate::normalise::alphanumeric_key;
use crate::pages::SearchPage;
use crate::proposal::Proposal;

use super::forms::{
    before_wide_gap, in_the_headings_column, is_legal_form, names_another_role, past_name_captions,
};

/// A name found on a page: its words, its text and its score.
pub(crate) struct Name {
    pub page: usize,
    pub words: Range<usize>,
    pub text: String,
    pub score: i32,
}

/// The words that part a sender line (`Bei Spiel GmbH ● Ecke 12 ● …`).
const SEPARATORS: &[&str] = &["●", "•", "·", "|", "-", "–", "—"];

/// What a sender line's name, or the addressee's after it, scores: more
/// than a name guessed from the next line after a label, less than one on
/// its label's line.
const SENDER_LINE: i32 = ABOVE + 15;
/// What a line with a legal form near the top scores, less its line's
/// index: an issuer's name is printed first.
const LEGAL_FORM_LINE: i32 = 40;
/// How far down the first page a name is looked for without a label.
const TOP_LINES: usize = 12;

/// The names proposed for a party field (`spec`'s concept is
/// [`Concept::Issuer`] or [`Concept::Buyer`]).
pub(crate) fn party_names(
    spec: &FieldSpec,
    pages: &[SearchPage],
    folded: &FoldedPages,
    found: &[Vec<Vec<Occurrence>>],
) -> Vec<Name> {
    let mut out = texts_after_labels(pages, folded, found);
    let sender = pages.first().and_then(sender_line);
    match spec.concept {
        Some(Concept::Issuer) => {
            out.extend(sender.clone().map(|(_, first_part)| Name {
                page: 0,
                text: pages[0].words_text(&first_part),
                words: first_part,
                score: SENDER_LINE,
            }));
            out.extend(legal_form_line(
                pages,
                folded,
                found,
                sender.map(|(l, _)| l),
            ));
            out.extend(first_text_line(pages, folded, found));
        }
        Some(Concept::Buyer) => {
            let first = &pages[0];
            out.extend(sender.and_then(|(line, _)| {
                addressee(first, &folded.0[0], line)
                    .or_else(|| address_block_below(first, &folded.0[0], line))
            }));
        }
        _ => {}
    }
    for name in &mut out {
        name.text = without_marks(&name.text);
        if pages[name.page].ocr {
            name.text = legal_forms_read(&name.text);
        }
    }
    out
}

/// The buyer is not the seller: a buyer's value that is the seller's chosen one (its letters and digits, in any case) is no buyer's candidate.
///
/// Where the buyer's best value is the seller's best, the buyer's next
/// value that differs is its best, or it has none. Applied to the ranked
/// values of every field, after each field's own rules.
/// Measured: LOCATOR_VERSION 15, e-invoice line items' tune split (buyer
/// 14 → 15 of 26), pages' payment fields and starter schema (buyer 27 →
/// 28 of 42 each); none lost on the corpus, i2d, einv
/// Test: the_buyers_value_is_never_the_sellers
pub(crate) fn buyer_is_not_the_seller(fields: &mut [(FieldSpec, Vec<Proposal>)]) {
    let party =
        |spec: &FieldSpec, concept| spec.kind == ValueKind::Text && spec.concept == Some(concept);
    let sellers: Vec<String> = fields
        .iter()
        .filter(|(spec, _)| party(spec, Concept::Issuer))
        .filter_map(|(_, ranked)| {
            ranked
                .first()
                .and_then(|p| p.value.as_str())
                .map(alphanumeric_key)
        })
        .collect();
    let is_a_seller = |p: &Proposal| {
        p.value
            .as_str()
            .is_some_and(|v| sellers.contains(&alphanumeric_key(v)))
    };
    for (_, ranked) in fields
        .iter_mut()
        .filter(|(spec, _)| party(spec, Concept::Buyer))
    {
        if ranked.first().is_some_and(is_a_seller) {
            ranked.retain(|p| !is_a_seller(p));
        }
    }
}

/// Marks OCR read beside a name (`* THAI DELICIOUS RESTAURANT`) are no part of it.
///
/// A name without the marks OCR read beside it (`* THAI DELICIOUS
/// RESTAURANT`, `~ AEON`): its words from the first to the last with a
/// letter or digit.
/// Measured: LOCATOR_VERSION 11, names on scans (receipts' sellers, tuning +33,
/// held-out +4 / −1; pages' starter schema 0)
/// Test: the_first_line_is_the_seller_without_its_marks_and_a_title_is_not
fn without_marks(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let spelled = |w: &&str| w.chars().any(char::is_alphanumeric);
    let first = words.iter().position(spelled).unwrap_or(0);
    let last = words
        .iter()
        .rposition(spelled)
        .map_or(words.len(), |at| at + 1);
    words[first..last].join(" ")
}

/// On a scan, a legal form misread by one letter beside another is read back (`SON BHD` is `SDN BHD`).
///
/// A scanned name with a legal form OCR misread by one letter beside
/// another legal form read back (`SUN WONG KUT SON BHD` is `SDN BHD`,
/// `Pte Lid` is `Ltd`), in the case it was printed in.
/// Measured: LOCATOR_VERSION 11, names on scans (receipts' sellers, tuning +33,
/// held-out +4 / −1; pages' starter schema 0)
/// Test: on_a_scan_a_legal_form_misread_by_a_letter_beside_another_is_read_back
fn legal_forms_read(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let folded: Vec<String> = words.iter().map(|w| fold_word(w)).collect();
    let form = |i: usize| folded.get(i).is_some_and(|f| is_legal_form(f));
    words
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let beside_form = form(i + 1) || i.checked_sub(1).is_some_and(form);
            match misread_legal_form(&folded[i]) {
                Some(legal) if beside_form => in_case_of(word, legal),
                _ => (*word).to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The legal form `folded` (a folded word, not itself one) is with one
/// letter misread (`son`, `bho`, `3hd`), if it is near exactly one.
fn misread_legal_form(folded: &str) -> Option<&'static str> {
    if folded.len() < 3 || is_legal_form(folded) || !folded.bytes().any(|b| b.is_ascii_alphabetic())
    {
        return None;
    }
    let mut near = lexicon()
        .legal_forms
        .iter()
        .filter(|l| l.len() == folded.len() && within_one_edit(folded.as_bytes(), l.as_bytes()));
    match (near.next(), near.next()) {
        (Some(legal), None) => Some(legal),
        _ => None,
    }
}

/// `word`'s letters replaced by `letters` (lower case), in `word`'s case
/// (all capitals, or a capital first), its marks kept around them.
fn in_case_of(word: &str, letters: &str) -> String {
    let start = word.find(char::is_alphabetic).unwrap_or(0);
    let end = word.rfind(char::is_alphabetic).map_or(word.len(), |at| {
        at + word[at..].chars().next().map_or(1, char::len_utf8)
    });
    let core = &word[start..end];
    let capitals = core
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(char::is_uppercase);
    let read: String = if capitals {
        letters.to_uppercase()
    } else {
        let mut chars = letters.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
    };
    format!("{}{read}{}", &word[..start], &word[end..])
}

/// What is no name: more than three digits, a web or mail address, a heading spaced out, a sentence's lead-in.
///
/// Whether `text` reads as a name: two letters or more, letters at
/// least half of what is not a space (`FR19787878784` is a number), at
/// most three digits (a customer number, a phone), no web or mail address,
/// not a heading spaced out letter by letter (`R E C H N U N G`) and not
/// a sentence's lead-in (`… to the following account:`).
/// Measured: LOCATOR_VERSION 10, the parties' names (pages' starter schema 243 → 285:
/// seller 9 → 28, buyer 0 → 23; receipts' sellers, tuning 89 → 146,
/// held-out 68 → 97)
/// Test: numbers_headings_and_sentences_are_no_ones_name
fn is_name(text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let digits = text.chars().filter(char::is_ascii_digit).count();
    let printed = text.chars().filter(|c| !c.is_whitespace()).count();
    let lower = text.to_lowercase();
    let words: Vec<&str> = text.split_whitespace().collect();
    let spelled = words
        .iter()
        .filter(|w| w.chars().filter(|c| c.is_alphanumeric()).count() >= 2)
        .count();
    letters >= 2
        && letters * 2 >= printed
        && digits <= 3
        && !["http", "www.", "@"].iter().any(|web| lower.contains(web))
        && spelled * 2 >= words.len()
        && !text.ends_with(':')
}

/// Whether `words` of a page read as a name ([`is_name`]) and are not
/// all label words (`Kundennummer`, `Warenempfänger`).
fn is_party_name(page: &SearchPage, folded: &[&str], words: &Range<usize>) -> bool {
    let text = page.words_text(words);
    is_name(text.trim_start_matches([':', '-', ' ']))
        && !folded[words.clone()]
            .iter()
            .filter(|w| !w.is_empty())
            .all(|w| is_label_word(w) || lexicon().salutations.contains(w))
}

/// A party's label names the words after it on its line, or a heading the line below it; a label and a legal form alone are the name.
///
/// The words after a label to the end of its line, as a name; where the
/// label ends its line (a section's heading: `Verkäufer`), the first line
/// below it that is a name (its `Name:` line's words, a numbered line
/// such as `Nummer: 549910` passed over). A label followed by a legal
/// form alone is itself part of the name (`Lieferant GmbH`).
/// Measured: LOCATOR_VERSION 10, the parties' names (pages' starter schema 243 → 285:
/// seller 9 → 28, buyer 0 → 23; receipts' sellers, tuning 89 → 146,
/// held-out 68 → 97);
/// a heading beside another column's label, LOCATOR_VERSION 11 (pages'
/// starter schema +5 / −0)
/// Test: a_label_followed_by_a_legal_form_alone_is_the_name_itself
fn texts_after_labels(
    pages: &[SearchPage],
    folded: &FoldedPages,
    found: &[Vec<Vec<Occurrence>>],
) -> Vec<Name> {
    let mut out = Vec::new();
    for (p, page) in pages.iter().enumerate() {
        for (l, line) in page.lines.iter().enumerate() {
            for o in found[p][l].iter().filter(|o| !o.rival) {
                let bonus = 8 * o.len as i32;
                let name = |words: Range<usize>, score: i32| {
                    let text = page.words_text(&words);
                    let text = text.trim_start_matches([':', '-', ' ']).trim();
                    // A label inside a sentence (`Der Lieferant bleibt
                    // Eigentümer …`) is followed by words in lower case; a
                    // name is capitalised.
                    let capitalised = text
                        .chars()
                        .find(|c| c.is_alphabetic())
                        .is_some_and(char::is_uppercase);
                    (capitalised && is_party_name(page, &folded.0[p], &words)).then(|| Name {
                        page: p,
                        text: text.to_owned(),
                        words,
                        score,
                    })
                };
                let on_line = (o.end < line.end).then(|| {
                    let rest = &folded.0[p][o.end..line.end];
                    let start = if rest.iter().all(|w| is_legal_form(w)) {
                        o.start
                    } else {
                        o.end
                    };
                    (before_wide_gap(page, start..line.end), SAME_LINE + bonus)
                });
                // A heading ends its line, or its column there
                // (`Rechnungsempfänger` before another column's
                // `Kundennummer GE2020211`): its name is below it.
                let heading = o.end >= line.end
                    || (before_wide_gap(page, o.start..line.end).end == o.end
                        && is_label_word(folded.0[p][o.end]));
                let below = || name(name_below(page, &folded.0[p], l, o.start)?, ABOVE + bonus);
                let named = match on_line {
                    _ if names_another_role(page, o.end) => below(),
                    Some((words, score)) if !heading => name(words, score),
                    Some((words, score)) => name(words, score).or_else(below),
                    None => below(),
                };
                out.extend(named);
            }
        }
    }
    out
}

/// Below a heading, the first of four lines that reads as a name is the party's, a numbered line passed over.
///
/// The name in the lines below a heading on line `l`: the first of the
/// next four that reads as one (the words after its `Name:`), a numbered
/// line (`Nummer: 549910`) passed over.
/// Measured: LOCATOR_VERSION 10, the parties' names (pages' starter schema 243 → 285:
/// seller 9 → 28, buyer 0 → 23; receipts' sellers, tuning 89 → 146,
/// held-out 68 → 97)
/// Test: a_sections_name_line_is_the_name_and_its_numbered_lines_are_passed_over
fn name_below(
    page: &SearchPage,
    folded: &[&str],
    l: usize,
    heading: usize,
) -> Option<Range<usize>> {
    page.lines.iter().skip(l + 1).take(4).find_map(|line| {
        let column = in_the_headings_column(page, heading, line.clone());
        let start = past_name_captions(folded, column.clone());
        let words = before_wide_gap(page, start..column.end);
        is_party_name(page, folded, &words)
            .then(|| name_runs_on_to_its_legal_form(page, folded, words))
    })
}

/// A name with no legal form runs on to the next line where that line ends in one (`MVM Musterhafter` / `Versicherungsverein Musterstadt a.G.`).
///
/// A company's name too long for its line goes on to its legal form:
/// `words`, the whole rest of their line and no legal form among them,
/// and the next line, where that line reads as a name, is one column
/// (no wide gap) and ends in a legal form.
/// Measured: LOCATOR_VERSION 16, e-invoice line items' tune split (seller
/// +2), pages' payment fields and starter schema (seller +1 each); none
/// lost on the corpus, i2d, pages' four fields, einv
/// Test: a_name_runs_on_to_the_next_line_that_ends_in_its_legal_form
fn name_runs_on_to_its_legal_form(
    page: &SearchPage,
    folded: &[&str],
    words: Range<usize>,
) -> Range<usize> {
    let Some(first) = words.clone().next() else {
        return words;
    };
    let line = &page.lines[page.words[first].line];
    let Some(next) = page.lines.get(page.words[first].line + 1) else {
        return words;
    };
    let ends_in_form = next
        .clone()
        .next_back()
        .is_some_and(|last| is_legal_form(folded[last]));
    let runs_on = words.end == line.end
        && !folded[words.clone()].iter().any(|w| is_legal_form(w))
        && ends_in_form
        && before_wide_gap(page, next.clone()) == *next
        && is_party_name(page, folded, next);
    if runs_on {
        words.start..next.end
    } else {
        words
    }
}

/// A letter's sender line (`Bei Spiel GmbH ● Ecke 12 ● 12345 Stadthausen`) names the seller.
///
/// A letter's sender line on `page`: three parts or more parted by a
/// separator word, the first a name, a later one holding a postcode (a
/// word of four or five digits printed alone: a table's row, `1 Razem
/// za energię - - 18,00`, has none). Its line, and the first part's words.
/// Measured: LOCATOR_VERSION 10, the parties' names (pages' starter schema 243 → 285:
/// seller 9 → 28, buyer 0 → 23; receipts' sellers, tuning 89 → 146,
/// held-out 68 → 97); the postcode printed alone, LOCATOR_VERSION 19
/// (pt-pl tune, the two KSeF invoices' sellers: seller 6 → 8 of 11); none
/// changed on the other sets
/// Test: a_letters_sender_line_names_the_seller_and_the_line_below_it_the_buyer
fn sender_line(page: &SearchPage) -> Option<(usize, Range<usize>)> {
    page.lines.iter().enumerate().find_map(|(l, line)| {
        let cuts: Vec<usize> = line
            .clone()
            .filter(|&w| SEPARATORS.contains(&&*page.words[w].text))
            .collect();
        let first = line.start..*cuts.first()?;
        let postcode = line
            .clone()
            .skip_while(|w| *w < cuts[0])
            .any(|w| is_postcode(&page.words[w].text));
        (cuts.len() >= 2 && postcode && !first.is_empty() && is_name(&page.words_text(&first)))
            .then_some((l, first))
    })
}

/// The line below a letter's sender line (past `Herrn`) names the buyer.
///
/// The addressee's name below the sender line `sender`: the next line,
/// past a salutation alone on its line (`Herrn`), if it reads as a name.
/// Measured: LOCATOR_VERSION 10, the parties' names (pages' starter schema 243 → 285:
/// seller 9 → 28, buyer 0 → 23; receipts' sellers, tuning 89 → 146,
/// held-out 68 → 97)
/// Test: a_letters_sender_line_names_the_seller_and_the_line_below_it_the_buyer
fn addressee(page: &SearchPage, folded: &[&str], sender: usize) -> Option<Name> {
    let mut below = page.lines.iter().skip(sender + 1);
    let mut line = below.next()?;
    if folded[line.clone()]
        .iter()
        .all(|w| lexicon().salutations.contains(w))
    {
        line = below.next()?;
    }
    let start = (line.start..line.end)
        .find(|w| !lexicon().salutations.contains(&folded[*w]))
        .unwrap_or(line.start);
    let words = before_wide_gap(page, start..line.end);
    let text = page.words_text(&words);
    is_party_name(page, folded, &words).then_some(Name {
        page: 0,
        words,
        text,
        score: SENDER_LINE,
    })
}

/// Whether a word as printed is a postcode: four or five digits alone
/// (a comma after them aside); `18,00` is an amount.
fn is_postcode(printed: &str) -> bool {
    let word = printed.trim_end_matches(',');
    (4..=5).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_digit())
}

/// Where the line below a sender line names no one, the first address block further down names the buyer: a name over a postcode.
///
/// Of the eight lines after the sender line `sender`, the first whose
/// first column reads as a name and is followed, within three lines, by
/// a line whose first column holds a postcode (four or five digits
/// printed alone): the addressee's window of a letter set lower on the
/// page (`Facture FA-2017-0010` / `Ma jolie boutique` / `35 rue de la
/// République` / `69001 Lyon`). Scored below any name a label gives.
/// Measured: LOCATOR_VERSION 19, pages' starter schema and payment
/// fields (buyer 28 → 34 of 42 each), e-invoice line items' tune split
/// (buyer 16 → 21 of 26; held out 15 → 21); none lost
/// Test: an_address_block_lower_down_names_the_buyer
fn address_block_below(page: &SearchPage, folded: &[&str], sender: usize) -> Option<Name> {
    let first_column = |l: usize| before_wide_gap(page, page.lines[l].clone());
    let has_postcode = |l: usize| first_column(l).any(|w| is_postcode(&page.words[w].text));
    let lines = page.lines.len();
    (sender + 1..(sender + 9).min(lines)).find_map(|l| {
        let words = first_column(l);
        let named = is_party_name(page, folded, &words)
            && (l + 1..(l + 4).min(lines)).any(has_postcode)
            && !has_postcode(l);
        named.then(|| Name {
            page: 0,
            text: page.words_text(&words),
            words,
            score: ABOVE - 1,
        })
    })
}

/// A line near the top with a company's legal form is the seller, with the line above where the form stands alone.
///
/// The first line near the top of the first page with a legal form in
/// it, up to its last legal form (`MR D.I.Y. (JOHOR) SDN BHD`), that no
/// label governs and that is not the addressee's (the line after a sender
/// line).
/// Measured: LOCATOR_VERSION 10, the parties' names (pages' starter schema 243 → 285:
/// seller 9 → 28, buyer 0 → 23; receipts' sellers, tuning 89 → 146,
/// held-out 68 → 97)
/// Test: a_line_with_a_legal_form_at_the_top_is_the_seller_with_the_line_above_a_lone_form
fn legal_form_line(
    pages: &[SearchPage],
    folded: &FoldedPages,
    found: &[Vec<Vec<Occurrence>>],
    sender: Option<usize>,
) -> Option<Name> {
    let page = pages.first()?;
    let words = &folded.0[0];
    page.lines
        .iter()
        .enumerate()
        .take(TOP_LINES)
        .filter(|(l, _)| sender.is_none_or(|s| !(s + 1..=s + 2).contains(l)))
        .filter(|(l, _)| {
            found[0][*l].is_empty() && (l.saturating_sub(2)..*l).all(|a| found[0][a].is_empty())
        })
        .find_map(|(l, line)| {
            let mut last = line.clone().rev().find(|w| is_legal_form(words[*w]))?;
            // Its second half misread (`Sdn Bad`, `SDN 3HD`) is still its.
            if page.ocr && last + 1 < line.end && misread_legal_form(words[last + 1]).is_some() {
                last += 1;
            }
            // A legal form alone on its line ends the name on the line
            // above (`PASARAYA BORONG PINTAR` / `SDN BHD`, `POPULAR BOOK`
            // / `CO. (M) SDN BHD`).
            let only_form = (line.start..last)
                .all(|w| is_legal_form(words[w]) || continues_form(&page.words[w].text, words[w]));
            let above = l.checked_sub(1).map(|a| page.lines[a].clone());
            let start = match above {
                Some(above) if only_form && is_party_name(page, words, &above) => above.start,
                _ => line.start,
            };
            let name = start..last + 1;
            let text = page.words_text(&name);
            is_name(&text).then(|| Name {
                page: 0,
                words: name,
                text,
                score: LEGAL_FORM_LINE - l as i32,
            })
        })
}

/// `Co.` and a country mark (`(M)`) before a legal form continue a name: the line joins the line above.
///
/// Whether a word before a legal form continues a company's name rather
/// than starting one: `Co.` (`& Co. KG`, `CO. (M) SDN BHD`) and a country
/// mark in brackets (`(M)`, `(S)`).
/// Measured: LOCATOR_VERSION 11, names on scans (receipts' sellers, tuning +33,
/// held-out +4 / −1; pages' starter schema 0)
/// Test: a_line_of_co_and_a_country_mark_before_the_legal_form_joins_the_line_above
fn continues_form(text: &str, folded: &str) -> bool {
    let bracketed = text.starts_with('(') && text.ends_with(')') && folded.len() <= 2;
    folded == "co" || (bracketed && !folded.is_empty())
}

/// The first line at the top with a name's letters is a guess for the seller; a title of label words (`TAX INVOICE`) is not.
///
/// The first line of the first page with a name's letters on it, a
/// capital among them, no label, and not only label words (a title such
/// as `TAX INVOICE`): who issued a document is printed at its top.
/// Measured: LOCATOR_VERSION 11, names on scans (receipts' sellers, tuning +33,
/// held-out +4 / −1; pages' starter schema 0)
/// Test: the_first_line_is_the_seller_without_its_marks_and_a_title_is_not
fn first_text_line(
    pages: &[SearchPage],
    folded: &FoldedPages,
    found: &[Vec<Vec<Occurrence>>],
) -> Option<Name> {
    let page = pages.first()?;
    page.lines.iter().enumerate().take(8).find_map(|(l, line)| {
        let text = page.words_text(line);
        let letters = text.chars().filter(|c| c.is_alphabetic()).count();
        let capital = text.chars().any(char::is_uppercase);
        let title = folded.0[0][line.clone()]
            .iter()
            .filter(|w| !w.is_empty())
            .all(|w| is_label_word(w));
        (letters >= 3
            && letters * 2 >= text.chars().count()
            && capital
            && !title
            && found[0][l].is_empty())
        .then(|| Name {
            page: 0,
            words: line.clone(),
            text,
            score: 5,
        })
    })
}
