//! Labels on the page: each word folded as labels are compared, a
//! field's label phrases found on each line, and the score a value gets
//! from the label that governs it (before it on its line, or above it in
//! its column).

use std::ops::Range;
use std::sync::OnceLock;

use foldhash::HashSet;

use super::lexicon;
use crate::pages::SearchPage;

/// The best score of a value labelled on its own line starts here; one
/// under a label on the line above, at [`ABOVE`].
pub(super) const SAME_LINE: i32 = 100;
pub(super) const ABOVE: i32 = 60;
/// A label that names something else (`Subtotal` for the total).
const RIVAL: i32 = -100;

/// A label phrase found on a line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Occurrence {
    /// Word indexes on the page.
    pub start: usize,
    pub end: usize,
    /// How many words it has: a longer phrase says more.
    pub len: usize,
    pub rival: bool,
    /// A tax's word (`GST`) rivalling a total, which a total's label
    /// before it on the line makes a qualifier: `Total with GST`.
    pub qualifier: bool,
}

/// What a label phrase says of the field it is looked up for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Own,
    Rival,
    /// A rival unless a label of the field's own comes before it on the
    /// line, a word or more away (see [`Occurrence::qualifier`]).
    Qualifier,
}

/// Each word of each page folded for label matching; and, for each word,
/// it and the next read as one word split in two (`Ver käufer:`), folded,
/// where they may be one (the rule [`PhraseStarts::split_in_two`] says);
/// and the words that start a label phrase of the lexicon, in order, with
/// the number of each of the two as a phrase's first word
/// ([`PhraseStarts::first_word`]): looked up once for all the fields, and
/// most words start none.
pub(super) struct FoldedPages<'a>(
    pub(super) Vec<Vec<&'a str>>,
    pub(super) Vec<Vec<Option<String>>>,
    pub(super) Vec<Vec<PhraseStart>>,
);

/// Each page's words folded ([`fold_word`], [`fold_ocr_word`] on a scan),
/// in one string a page, which [`FoldedPages`] lends out word by word: a
/// string for each word was a fifth of locating's allocations.
pub(super) struct FoldedText(Vec<(String, Vec<Range<usize>>)>);

impl FoldedText {
    pub fn new(pages: &[SearchPage]) -> Self {
        Self(
            pages
                .iter()
                .map(|page| {
                    let length = page.words.iter().map(|w| w.text.len()).sum();
                    let mut text = String::with_capacity(length);
                    let mut spans = Vec::with_capacity(page.words.len());
                    for word in &page.words {
                        let start = text.len();
                        if page.ocr {
                            text.push_str(&fold_ocr_word(&word.text));
                        } else {
                            fold_word_into(&word.text, &mut text);
                        }
                        spans.push(start..text.len());
                    }
                    (text, spans)
                })
                .collect(),
        )
    }
}

/// A word that starts a label phrase: its index, and the numbers as a
/// phrase's first word of it and of it read with the next as one.
pub(super) type PhraseStart = (usize, Option<u32>, Option<u32>);

/// How a page's words start a label phrase, given by the caller: the
/// rule that reads two words as one split in two (`rules::shared`), and
/// a folded word's number among the phrases' first words (`phrases`).
/// Passed in, so that reading labels depends on neither the rules nor
/// the phrase tables, which both read labels.
pub(super) struct PhraseStarts {
    /// Two words of a line read as one, folded, where they may be one.
    pub split_in_two: fn(&str, &str) -> Option<String>,
    /// A folded word's number as a phrase's first word, if it starts one.
    pub first_word: fn(&str) -> Option<u32>,
}

impl<'a> FoldedPages<'a> {
    /// The words folded, with no phrase starts: what a search of the
    /// words themselves reads (the home country's).
    pub fn new(pages: &[SearchPage], text: &'a FoldedText) -> Self {
        let none = PhraseStarts {
            split_in_two: |_, _| None,
            first_word: |_| None,
        };
        Self::with_phrase_starts(pages, text, &none)
    }

    /// The words folded (`text`, the pages' words folded), and where
    /// label phrases start (see the type).
    pub fn with_phrase_starts(
        pages: &[SearchPage],
        text: &'a FoldedText,
        starts: &PhraseStarts,
    ) -> Self {
        let words: Vec<Vec<&'a str>> = text
            .0
            .iter()
            .map(|(text, spans)| spans.iter().map(|span| &text[span.clone()]).collect())
            .collect();
        // Not on a scan: its words are read back to the label word they
        // are near, which a joined pair would reach too easily.
        let joined = pages
            .iter()
            .map(|p| {
                (0..p.words.len())
                    .map(|w| {
                        let next = p.words.get(w + 1).filter(|n| n.line == p.words[w].line)?;
                        (!p.ocr)
                            .then(|| (starts.split_in_two)(&p.words[w].text, &next.text))
                            .flatten()
                    })
                    .collect()
            })
            .collect::<Vec<Vec<Option<String>>>>();
        let firsts = words
            .iter()
            .zip(&joined)
            .map(|(words, joined)| {
                words
                    .iter()
                    .zip(joined)
                    .enumerate()
                    .map(|(w, (word, joined))| {
                        let first_word = starts.first_word;
                        (w, first_word(word), joined.as_deref().and_then(first_word))
                    })
                    .filter(|(_, word, joined)| word.is_some() || joined.is_some())
                    .collect()
            })
            .collect();
        Self(words, joined, firsts)
    }
}

/// Where a word's bracketed tail starts (`Total(MYR)`, `Amt[EUR]`), if it
/// has one after some letters: a label's unit or currency.
pub(super) fn bracketed_tail(word: &str) -> Option<usize> {
    word.find(['(', '[']).filter(|at| *at > 0)
}

/// Where the first of two words joined by a slash ends (`GST/TAX`,
/// `Date/Time`, `Tel/Fax`), when each is of three letters or more: two
/// labels of one thing, or a bilingual label, of which the first is read.
/// (`S/B`, `A/C` are abbreviations, and stay one word.)
fn slash_joined(word: &str) -> Option<usize> {
    let (first, second) = word.split_once('/')?;
    let letters = |part: &str| {
        let part = part.trim_matches(|c: char| !c.is_alphanumeric());
        part.chars().count() >= 3 && part.chars().all(char::is_alphabetic)
    };
    (letters(first) && letters(second)).then_some(first.len())
}

/// A word as labels are compared: lower case, marks dropped, and every
/// way of writing "number" (`No.`, `Nr`, `N°`, `#`) as `no`.
pub(super) fn fold_word(word: &str) -> String {
    let mut folded = String::with_capacity(word.len());
    fold_word_into(word, &mut folded);
    folded
}

/// [`fold_word`], written at the end of `out`.
fn fold_word_into(word: &str, out: &mut String) {
    if word.starts_with('#') && word.chars().skip(1).all(|c| !c.is_alphanumeric()) {
        out.push_str("no");
        return;
    }
    // A bracketed tail is the label's unit or currency, not its word:
    // `Total(MYR):` is `total`, `Item(s)` is `item`.
    let word = bracketed_tail(word).map_or(word, |at| &word[..at]);
    let word = slash_joined(word).map_or(word, |at| &word[..at]);
    let start = out.len();
    if word.is_ascii() {
        // Most words: their bytes, without the work of Unicode's cases.
        out.extend(
            word.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| char::from(b.to_ascii_lowercase())),
        );
    } else {
        out.extend(
            word.chars()
                .filter(|c| c.is_alphanumeric() && !matches!(c, 'º' | 'ª'))
                .flat_map(char::to_lowercase),
        );
    }
    let written_as = match &out[start..] {
        "nr" | "n" | "num" | "nummer" | "number" | "numéro" | "numero" | "número" => "no",
        // `Amt Due`, `Total Amt`: receipts shorten "amount".
        "amt" => "amount",
        _ => return,
    };
    out.truncate(start);
    out.push_str(written_as);
}

/// A word OCR read, folded as labels are compared, with its likely
/// misreadings undone: a letter read as a mark or digit (`Tota!`,
/// `Sub-tota]`, `T0TAL`), and a label word with one letter wrong, one
/// too many or one missing (`Tatal`, `Roundng`), or a plural (`TUTALS`).
/// Only words of five letters or more are corrected, and only to the one
/// label word they are that near: shorter words are too easily another.
pub(super) fn fold_ocr_word(word: &str) -> String {
    let folded = fold_word(&misread_letters(word));
    if folded.chars().count() < 5 || !folded.chars().all(|c| c.is_ascii_lowercase()) {
        return folded;
    }
    let vocabulary = label_vocabulary();
    if vocabulary.contains(folded.as_str()) {
        return folded;
    }
    let singular = folded.strip_suffix('s').filter(|s| s.len() >= 5);
    let corrected = [Some(folded.as_str()), singular]
        .into_iter()
        .flatten()
        .find_map(|form| nearest_label_word(form, vocabulary));
    corrected.map_or(folded, str::to_owned)
}

/// `word` with the marks and digits OCR prints for `l` and `o` read as
/// those letters, when the word is mostly letters and the result is all
/// letters (so `GST001` and `10.00` stay as they are).
fn misread_letters(word: &str) -> std::borrow::Cow<'_, str> {
    // A bracketed tail is cut by `fold_word`; its `[` stays a bracket.
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let misread = |c: char| matches!(c, '!' | '|' | ']' | '1' | '0');
    let count = word.chars().filter(|c| misread(*c)).count();
    if count == 0 || letters < 3 || count > 2 {
        return word.into();
    }
    let read: String = word
        .chars()
        .map(|c| match c {
            '0' => 'o',
            c if misread(c) => 'l',
            c => c,
        })
        .collect();
    let core = read.trim_matches(|c: char| !c.is_alphanumeric());
    if core.chars().all(char::is_alphabetic) {
        read.into()
    } else {
        word.into()
    }
}

/// Whether `folded` (a word folded by [`fold_word`]) is a word of some
/// label phrase, a concept's or a rival's, in any language: a heading
/// such as `Kundennummer` or `Käufer` is no one's name.
pub(super) fn is_label_word(folded: &str) -> bool {
    static WORDS: OnceLock<HashSet<String>> = OnceLock::new();
    WORDS
        .get_or_init(|| label_phrase_words().into_iter().map(fold_word).collect())
        .contains(folded)
}

/// Every word of every label phrase of every concept and of its rivals,
/// as the lexicon writes it.
fn label_phrase_words() -> Vec<&'static str> {
    lexicon::CONCEPTS
        .iter()
        .flat_map(|concept| {
            let rivals = lexicon::rival_labels(*concept);
            lexicon::labels(*concept).iter().copied().chain(rivals)
        })
        .flat_map(str::split_whitespace)
        .collect()
}

/// Every word of every label phrase of every concept, and the rounding
/// words, folded.
fn label_vocabulary() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words: HashSet<&'static str> = lexicon::rounding_words().iter().copied().collect();
        // Only plain words: the lexicon's are folded already, but `n°`
        // and `#` are not what a misreading becomes.
        words.extend(
            label_phrase_words()
                .into_iter()
                .filter(|word| word.chars().all(|c| c.is_ascii_lowercase())),
        );
        words
    })
}

/// The one label word at most one edit from `word` (all lower-case ASCII
/// letters), if exactly one is.
fn nearest_label_word(word: &str, vocabulary: &HashSet<&'static str>) -> Option<&'static str> {
    let mut near = vocabulary
        .iter()
        .filter(|v| v.len().abs_diff(word.len()) <= 1 && v.len() >= 4)
        .filter(|v| within_one_edit(word.as_bytes(), v.as_bytes()));
    let first = near.next()?;
    near.next().is_none().then_some(*first)
}

/// Whether `a` becomes `b` by changing, adding or dropping at most one byte.
pub(super) fn within_one_edit(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let prefix = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if short.len() == long.len() {
        short[prefix.min(short.len())..]
            .iter()
            .skip(1)
            .eq(long[prefix.min(long.len())..].iter().skip(1))
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

/// A word wholly in brackets (`(380)`): a code beside a label, not a
/// value of its own.
pub(crate) fn bracketed(word: &str) -> bool {
    word.starts_with('(') && word.ends_with(')')
}

/// The score a value at `words` of page `page` gets from the label that
/// governs it: the nearest label ending before it on its line, else the
/// one above it on the line before (by its box's columns when the page
/// has boxes, else by its place in the line).
pub(super) fn label_score(
    pages: &[SearchPage],
    found: &[Vec<Vec<Occurrence>>],
    page: usize,
    words: &Range<usize>,
) -> i32 {
    let search = &pages[page];
    let line = search.words[words.start].line;
    let is_before = |o: &&Occurrence| o.end <= words.start;
    // Most values have no label before them on their line, and a labelled
    // one mostly one: a vector only for two or more.
    let mut labels_before = found[page][line].iter().filter(is_before);
    let mut several: Vec<&Occurrence>;
    let one: [&Occurrence; 1];
    let mut before: &[&Occurrence] = match (labels_before.next(), labels_before.next()) {
        (None, _) => &[],
        (Some(only), None) => {
            one = [only];
            &one
        }
        (Some(first), Some(second)) => {
            several = [first, second].into_iter().chain(labels_before).collect();
            several.sort_by_key(|o| std::cmp::Reverse((o.end, o.len)));
            &several
        }
    };
    // `Total with GST 77.20`: the tax's word qualifies the total's label
    // before it, which governs the value (`Total GST`, adjacent, is the tax).
    if let Some(nearest) = before.first().filter(|o| o.qualifier) {
        let own = before
            .iter()
            .position(|o| !o.rival && o.end < nearest.start);
        if let Some(at) = own {
            before = &before[at..];
        }
    }
    if let Some(nearest) = before.first() {
        // The labels chained before the value, each at most a word (a
        // `:`) after the one before it, govern it together: `Invoice No :
        // #` says more than `#`, and `Contract No.` is a contract's.
        // A value between two labels is the first one's (`Total Saving
        // 0.00 Total 77.20`): no chain passes over it. A code in brackets
        // is no value (`Handelsrechnung (380) Nr.`).
        let (mut last, mut rival, mut len) = (*nearest, nearest.rival, nearest.len);
        for o in &before[1..] {
            let gap = search.words[o.end.min(last.start)..last.start]
                .iter()
                .any(|w| w.text.bytes().any(|b| b.is_ascii_digit()) && !bracketed(&w.text));
            if o.end <= last.start && last.start - o.end <= 1 && !gap {
                (last, rival, len) = (o, rival || o.rival, len + o.len);
            }
        }
        if rival {
            return RIVAL;
        }
        if heads_rates(search, nearest) {
            return 0;
        }
        // Each word between a label and its value makes it less its own;
        // a mark alone (`|`, `-`, `:`) is no word. Ten are as far as
        // counting goes: a line of many values counts no further.
        let between = search.words[nearest.end..words.start]
            .iter()
            .filter(|w| w.text.chars().any(char::is_alphanumeric))
            .take(10)
            .count();
        let distance = 3 * between.min(10) as i32;
        return SAME_LINE + 8 * len as i32 - distance;
    }
    if line == 0 {
        return 0;
    }
    let above = &found[page][line - 1];
    let value_box = search.words[words.start].bbox;
    let value_column = words.start - search.lines[line].start;
    let governing = above
        .iter()
        .map(|o| {
            let offset = match (value_box, search.words[o.start].bbox) {
                (Some(v), Some(_)) => {
                    // Columns overlap: the label's words span the value's left edge
                    // or start within it.
                    let (l, r) = span(search, o.start..o.end);
                    let (vl, vr) = (v.x, v.x + v.width);
                    if l <= vr && vl <= r {
                        0
                    } else {
                        let gap = if r < vl { vl - r } else { l - vr };
                        // A gap of a tenth of the page is as far as a
                        // column reaches.
                        if gap > 0.1 {
                            usize::MAX
                        } else {
                            (gap * 100.0) as usize
                        }
                    }
                }
                _ => (o.start - search.lines[line - 1].start).abs_diff(value_column),
            };
            (offset, o)
        })
        .filter(|(offset, _)| *offset != usize::MAX)
        .min_by_key(|(offset, o)| (*offset, usize::MAX - o.len));
    match governing {
        Some((_, o)) if o.rival => RIVAL,
        // `MwSt-%`, `USt. %`, `Steuersatz [%]`: a column of rates.
        Some((_, o)) if heads_rates(search, o) => 0,
        Some((offset, o)) => ABOVE + 8 * o.len as i32 - offset.min(20) as i32,
        None => 0,
    }
}

/// Whether a label is a rate's: its last word holds a `%` (`MwSt.-%`),
/// or the word after it is one of marks alone (`USt. %`, `Steuersatz
/// [%]`; `USt. 19%` prints a rate, and labels the amounts after it).
fn heads_rates(page: &SearchPage, label: &Occurrence) -> bool {
    let line = &page.lines[page.words[label.start].line];
    let unit = |w: usize| {
        let text = &page.words[w].text;
        text.contains('%') && !text.chars().any(char::is_alphanumeric)
    };
    page.words[label.end - 1].text.contains('%') || (label.end < line.end && unit(label.end))
}

/// The left and right edges of a run of words with boxes (left past
/// right where none has a box).
pub(crate) fn span(page: &SearchPage, words: Range<usize>) -> (f32, f32) {
    let boxes = page.words[words].iter().filter_map(|w| w.bbox);
    boxes.fold((f32::MAX, f32::MIN), |(l, r), b| {
        (l.min(b.x), r.max(b.x + b.width))
    })
}

/// For each line of each page, whether one of its words folds to one of `words`.
pub(super) fn lines_with(
    folded: &FoldedPages,
    pages: &[SearchPage],
    words: &[&str],
) -> Vec<Vec<bool>> {
    pages
        .iter()
        .zip(&folded.0)
        .map(|(page, folded)| {
            page.lines
                .iter()
                .map(|line| folded[line.clone()].iter().any(|w| words.contains(w)))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_words_fold_to_one() {
        for w in ["No.", "Nr", "N°", "#", "#:", "Nº", "no", "Number", "numéro"] {
            assert_eq!(fold_word(w), "no", "{w}");
        }
        assert_eq!(fold_word("Rechnungs-Nr."), "rechnungsnr");
        assert_eq!(fold_word("Date:"), "date");
        assert_eq!(fold_word("Total(MYR):"), "total");
        assert_eq!(fold_word("Item(s)"), "item");
        assert_eq!(fold_word("Amt"), "amount");
        assert_eq!(fold_word("(Excluding"), "excluding");
    }

    #[test]
    fn two_words_joined_by_a_slash_fold_to_the_first() {
        assert_eq!(fold_word("GST/TAX"), "gst");
        assert_eq!(fold_word("Date/Time:"), "date");
        assert_eq!(fold_word("Total/Gesamt"), "total");
        // Abbreviations, and numbers, stay whole.
        assert_eq!(fold_word("S/B"), "sb");
        assert_eq!(fold_word("A/C"), "ac");
        assert_eq!(fold_word("12/03"), "1203");
    }

    #[test]
    fn ocr_misreadings_of_label_words_are_undone() {
        for (read, meant) in [
            ("Tota!", "total"),
            ("Sub-tota]", "subtotal"),
            ("T0TAL", "total"),
            ("Tatal:", "total"),
            ("TUTALS", "total"),
            ("Roundng", "rounding"),
            ("Total[MYR]", "total"),
        ] {
            assert_eq!(fold_ocr_word(read), meant, "{read}");
        }
        // Digits that are a number's, short words, and words near no one
        // label word stay as they are.
        for (read, folded) in [
            ("GST001", "gst001"),
            ("10.00", "1000"),
            ("Tax", "tax"),
            ("Iota", "iota"),
            ("Hotel", "hotel"),
            ("Cashier", "cashier"),
        ] {
            assert_eq!(fold_ocr_word(read), folded, "{read}");
        }
    }

    #[test]
    fn one_edit_is_a_change_an_addition_or_a_removal() {
        assert!(within_one_edit(b"tatal", b"total"));
        assert!(within_one_edit(b"totl", b"total"));
        assert!(within_one_edit(b"totall", b"total"));
        assert!(within_one_edit(b"total", b"total"));
        assert!(!within_one_edit(b"tutals", b"total"));
        assert!(!within_one_edit(b"atotl", b"total"));
    }
}
