//! A field's label phrases, and where they are on the page. A concept's
//! phrases (its labels and its rivals') are folded once for the process
//! and kept by their first word: every field of every document looks
//! them up, and folding them anew each time was most of what locating
//! cost.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use foldhash::HashMap;
use std::sync::OnceLock;

use super::fields::FieldSpec;
use super::labels::{FoldedPages, Occurrence, PhraseStart, Role, bracketed_tail, fold_word};
use super::lexicon::{self, CONCEPTS, Concept};
use crate::pages::SearchPage;

/// Folded phrases by their first word's number ([`first_word`]), each
/// phrase once (the first given of equal phrases is kept, so a concept's
/// own label wins over a rival's).
pub(super) struct PhraseTable(HashMap<u32, Vec<(Vec<String>, Role)>>);

impl PhraseTable {
    fn new<'a>(
        phrases: impl IntoIterator<Item = (&'a str, Role)>,
        first_words: &mut HashMap<String, u32>,
    ) -> Self {
        let mut seen: HashSet<Vec<String>> = HashSet::new();
        let mut by_first: HashMap<u32, Vec<(Vec<String>, Role)>> = HashMap::default();
        for (phrase, role) in phrases {
            let words = fold_phrase(phrase);
            let Some(first) = words.first().cloned() else {
                continue;
            };
            let next = u32::try_from(first_words.len()).expect("fewer label words than u32");
            let first = *first_words.entry(first).or_insert(next);
            if seen.insert(words.clone()) {
                by_first.entry(first).or_default().push((words, role));
            }
        }
        Self(by_first)
    }

    /// The phrases whose first word is the word numbered `first`, if
    /// the word is the first of any phrase.
    fn starting_with(&self, first: Option<u32>) -> &[(Vec<String>, Role)] {
        first
            .and_then(|first| self.0.get(&first))
            .map_or(&[], Vec::as_slice)
    }
}

fn fold_phrase(phrase: &str) -> Vec<String> {
    phrase
        .split_whitespace()
        .map(fold_word)
        .filter(|w| !w.is_empty())
        .collect()
}

/// Every phrase table, and the first words of their phrases numbered.
/// A page's word is looked up once among the first words
/// ([`first_word`], when its page is folded); each field then finds its
/// phrases by that number, without hashing the word again.
struct Tables {
    first_words: HashMap<String, u32>,
    /// Each concept's, in [`CONCEPTS`]' order.
    concepts: Vec<PhraseTable>,
    /// A total's own labels alone.
    totals: PhraseTable,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut first_words = HashMap::default();
        let concepts = CONCEPTS
            .iter()
            .map(|&concept| {
                let taxes = lexicon::labels(Concept::Tax);
                let own = lexicon::labels(concept).iter().map(|l| (*l, Role::Own));
                let rivals = lexicon::rival_labels(concept).into_iter().map(|label| {
                    let qualifies = concept == Concept::Total && taxes.contains(&label);
                    let role = if qualifies {
                        Role::Qualifier
                    } else {
                        Role::Rival
                    };
                    (label, role)
                });
                PhraseTable::new(own.chain(rivals), &mut first_words)
            })
            .collect();
        let totals = PhraseTable::new(
            lexicon::labels(Concept::Total)
                .iter()
                .map(|l| (*l, Role::Own)),
            &mut first_words,
        );
        Tables {
            first_words,
            concepts,
            totals,
        }
    })
}

/// The number of a folded word that starts some label phrase, or `None`
/// (most words of a page: then no table has a phrase starting with it).
pub(super) fn first_word(folded: &str) -> Option<u32> {
    tables().first_words.get(folded).copied()
}

/// A concept's labels, then its rivals' that are not also its own.
fn concept_table(concept: Concept) -> &'static PhraseTable {
    // CONCEPTS lists the concepts in their declared order (a test holds it).
    &tables().concepts[concept as usize]
}

/// A field's label phrases, folded: its own name's words first, then its
/// concept's table.
pub(super) struct FieldPhrases {
    own: Vec<String>,
    table: Option<&'static PhraseTable>,
}

impl FieldPhrases {
    pub fn of(spec: &FieldSpec) -> Self {
        Self {
            own: fold_phrase(&spec.own_label),
            table: spec.concept.map(concept_table),
        }
    }
}

/// Every label phrase of `phrases` on each line of each page, without
/// those inside a longer one found at the same place.
pub(super) fn occurrences(
    pages: &[SearchPage],
    folded: &FoldedPages,
    phrases: &FieldPhrases,
) -> Vec<Vec<Vec<Occurrence>>> {
    let own: &[(Vec<String>, Role)] = &[(phrases.own.clone(), Role::Own)];
    let own = if phrases.own.is_empty() { &[] } else { own };
    find(
        pages,
        folded,
        phrases.own.first().map(String::as_str),
        |word, first| {
            let shared = phrases.table.map_or(&[][..], |t| t.starting_with(first));
            let starts_own = own.first().is_some_and(|(p, _)| p[0] == word);
            // A shared phrase starts with `word`: it is the field's own
            // label only where that starts with `word` too.
            own.iter().take(usize::from(starts_own)).chain(
                shared
                    .iter()
                    .filter(move |(p, _)| !starts_own || *p != phrases.own),
            )
        },
    )
}

/// For each line of each page, whether a total's label is on it.
pub(super) fn total_lines(pages: &[SearchPage], folded: &FoldedPages) -> Vec<Vec<bool>> {
    let totals = &tables().totals;
    find(pages, folded, None, |_, first| {
        totals.starting_with(first).iter()
    })
    .into_iter()
    .map(|lines| lines.into_iter().map(|found| !found.is_empty()).collect())
    .collect()
}

/// The phrases `starting` gives for each word found on each line (it is
/// given the folded word and its number as a first word). Only the words
/// that start a phrase are tried: those that start one of the lexicon's
/// ([`FoldedPages`] lists them with their numbers) and those that are the
/// first of `own_first`, the field's own label; for any other word
/// `starting` gives nothing.
fn find<'p, I>(
    pages: &[SearchPage],
    folded: &FoldedPages,
    own_first: Option<&str>,
    starting: impl Fn(&str, Option<u32>) -> I,
) -> Vec<Vec<Vec<Occurrence>>>
where
    I: Iterator<Item = &'p (Vec<String>, Role)>,
{
    pages
        .iter()
        .zip(&folded.0)
        .zip(&folded.1)
        .zip(&folded.2)
        .map(|(((page, words), joined), lexicon_starts)| {
            // In the page's order: each start is tried on its own line
            // (most lines start no phrase, and are not visited).
            let starts = with_own_label(lexicon_starts, words, joined, own_first);
            let mut lines: Vec<Vec<Occurrence>> = vec![Vec::new(); page.lines.len()];
            for &(start, word_first, joined_first) in starts.iter() {
                let line_index = page.words[start].line;
                let line = &page.lines[line_index];
                let found = &mut lines[line_index];
                // A phrase's first word is the word at `start`, or
                // that word and the next read as one (`Ver käufer:`).
                let candidates = [
                    Some((words[start], word_first, start + 1)),
                    joined[start]
                        .as_deref()
                        .map(|word| (word, joined_first, start + 2)),
                ];
                for (first, number, rest) in candidates.into_iter().flatten() {
                    for (phrase, role) in starting(first, number) {
                        let end = rest + phrase.len() - 1;
                        if end <= line.end
                            && words[rest..end] == phrase[1..]
                            // A unit in brackets ends a column's header
                            // (`GST(RM) Total(RM)` is two, not `GST Total`).
                            && !page.words[start..end - 1]
                                .iter()
                                .any(|w| bracketed_tail(&w.text).is_some())
                        {
                            found.push(Occurrence {
                                start,
                                end,
                                len: phrase.len(),
                                rival: *role != Role::Own,
                                qualifier: *role == Role::Qualifier,
                            });
                        }
                    }
                }
            }
            for found in &mut lines {
                drop_inside_longer(found, |o| o.start..o.end);
            }
            lines
        })
        .collect()
}

/// A page's words that start one of the lexicon's phrases, with those
/// whose word (or it and the next read as one) is `own_first`, in the
/// page's order, each once.
fn with_own_label<'a>(
    lexicon_starts: &'a [PhraseStart],
    words: &[&str],
    joined: &[Option<String>],
    own_first: Option<&str>,
) -> Cow<'a, [PhraseStart]> {
    let Some(own) = own_first else {
        return lexicon_starts.into();
    };
    let mut own_starts = (0..words.len())
        .filter(|&w| words[w] == own || joined[w].as_deref() == Some(own))
        .peekable();
    if own_starts.peek().is_none() {
        return lexicon_starts.into();
    }
    let mut starts = Vec::with_capacity(lexicon_starts.len() + 4);
    let mut lexicon = lexicon_starts.iter().copied().peekable();
    for w in own_starts {
        while let Some(start) = lexicon.next_if(|s| s.0 < w) {
            starts.push(start);
        }
        // The lexicon's numbers where the word starts one of its phrases too.
        starts.push(lexicon.next_if(|s| s.0 == w).unwrap_or((w, None, None)));
    }
    starts.extend(lexicon);
    starts.into()
}

/// Keeps the phrases found on a line that are not inside a longer one
/// found at the same place (`wales` in `New South Wales`).
pub(super) fn drop_inside_longer<T>(found: &mut Vec<T>, span: impl Fn(&T) -> Range<usize>) {
    if found.len() < 2 {
        return;
    }
    let spans: Vec<Range<usize>> = found.iter().map(&span).collect();
    found.retain(|x| {
        let at = span(x);
        !spans.iter().any(|longer| {
            longer.len() > at.len() && longer.start <= at.start && at.end <= longer.end
        })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_concept_has_its_table() {
        for (at, concept) in CONCEPTS.iter().enumerate() {
            assert_eq!(*concept as usize, at, "{concept:?} out of its place");
            let table = concept_table(*concept);
            let first = fold_phrase(lexicon::labels(*concept)[0]);
            assert!(
                table
                    .starting_with(first_word(&first[0]))
                    .iter()
                    .any(|(p, role)| *p == first && *role == Role::Own),
                "{concept:?}"
            );
        }
    }

    #[test]
    fn a_phrase_both_own_and_rival_is_own() {
        // `total` is the total's and a rival of the net's; for the total
        // it is its own only once.
        let table = concept_table(Concept::Total);
        let total: Vec<_> = table
            .starting_with(first_word("total"))
            .iter()
            .filter(|(p, _)| p.len() == 1)
            .collect();
        assert_eq!(total.len(), 1);
        assert_eq!(total[0].1, Role::Own);
    }
}
