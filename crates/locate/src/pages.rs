//! A document as the words the locator and evidence search: page by
//! page, line by line, each word with its box on the page when the page
//! has boxes.

use std::ops::Range;
use std::sync::Arc;

use serde::Serialize;
use sift_documents::{Content, Document, WordLines};

/// A box on a page, as fractions of the page's width and height from its
/// top-left corner (core shows it as its `WordBox`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WordBox {
    /// Left edge, as a fraction of the page's width (0 is the left side).
    pub x: f32,
    /// Top edge, as a fraction of the page's height (0 is the top).
    pub y: f32,
    /// Width, as a fraction of the page's width.
    pub width: f32,
    /// Height, as a fraction of the page's height.
    pub height: f32,
}

/// One place a value occurs: its page, the line around it, its box
/// (serialised as core's `Place` is).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Place {
    /// From 1 (1 for a file without pages).
    pub page: u32,
    /// The line around the value (the lines, for a value across lines).
    pub quote: String,
    /// Where on the page; `None` for a file whose words have no boxes
    /// (text, Word, Excel).
    #[serde(rename = "box")]
    pub bbox: Option<WordBox>,
    /// Whether a label naming the field is beside it.
    pub labelled: bool,
}

/// A place a value was found: a run of words on one page.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Index into the pages searched.
    pub page: usize,
    /// The words of the match on its page.
    pub words: Range<usize>,
    /// Found as it is (not only in normalised form).
    pub exact: bool,
    /// How strongly a label naming the field is beside it (0: none).
    pub label: u32,
}

/// One word of a page.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchWord {
    /// The word as printed (a run of text between spaces).
    pub text: Arc<str>,
    /// Index of its line on the page.
    pub line: usize,
    /// Where the word is on the page, when the page has boxes.
    pub bbox: Option<WordBox>,
}

/// One page's words, in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    /// From 1.
    pub number: u32,
    /// Every word of the page, line after line.
    pub words: Vec<SearchWord>,
    /// Each line's words (a range of `words`).
    pub lines: Vec<Range<usize>>,
    /// Its words were read by OCR, so a label may come misspelt (`Tota!`).
    pub ocr: bool,
}

impl SearchPage {
    fn from_text(number: u32, text: &str) -> Self {
        let lines = text.lines().map(|line| {
            line.split_whitespace()
                .map(|w| (Arc::from(w), None))
                .collect::<Vec<_>>()
        });
        Self::from_lines(number, lines, false)
    }

    fn from_word_lines(number: u32, layout: &WordLines, ocr: bool) -> Self {
        let (w, h) = (layout.width.max(1.0), layout.height.max(1.0));
        let lines = layout.lines.iter().map(|line| {
            line.iter()
                .map(|word| {
                    let bbox = WordBox {
                        x: fraction(word.left / w),
                        y: fraction(word.top / h),
                        width: fraction(word.width / w),
                        height: fraction(word.height / h),
                    };
                    (Arc::from(word.text.as_str()), Some(bbox))
                })
                .collect::<Vec<_>>()
        });
        Self::from_lines(number, lines, ocr)
    }

    fn from_lines(
        number: u32,
        lines: impl Iterator<Item = Vec<(Arc<str>, Option<WordBox>)>>,
        ocr: bool,
    ) -> Self {
        let mut page = Self {
            number,
            words: Vec::new(),
            lines: Vec::new(),
            ocr,
        };
        for line in lines.filter(|l| !l.is_empty()) {
            let start = page.words.len();
            let index = page.lines.len();
            page.words
                .extend(line.into_iter().map(|(text, bbox)| SearchWord {
                    text,
                    line: index,
                    bbox,
                }));
            page.lines.push(start..page.words.len());
        }
        page
    }

    /// A line's text, its words joined by a space.
    pub fn line_text(&self, line: usize) -> String {
        self.words_text(&self.lines[line])
    }

    /// The text of a run of words, joined by a space.
    pub fn words_text(&self, words: &Range<usize>) -> String {
        join(&self.words[words.clone()])
    }
}

fn join(words: &[SearchWord]) -> String {
    words.iter().map(|w| &*w.text).collect::<Vec<_>>().join(" ")
}

/// The pages of a document as evidence searches them: a PDF's pages, each
/// with its words' boxes when it has them; any other file as one page
/// (an image with its OCR words' boxes).
pub fn search_pages(document: &Document) -> Vec<SearchPage> {
    match &document.content {
        Content::Pages(pages) => pages
            .iter()
            .map(|page| {
                let number = u32::try_from(page.number).unwrap_or(u32::MAX);
                match page.word_lines() {
                    Some(layout) => {
                        SearchPage::from_word_lines(number, &layout, page.ocr.is_some())
                    }
                    None => SearchPage::from_text(number, &page.text),
                }
            })
            .collect(),
        Content::Text(text) => vec![match document.word_lines() {
            Some(layout) => SearchPage::from_word_lines(1, &layout, true),
            None => SearchPage::from_text(1, text),
        }],
        Content::Image(_) => vec![match document.word_lines() {
            Some(layout) => SearchPage::from_word_lines(1, &layout, true),
            None => SearchPage::from_text(1, ""),
        }],
    }
}

/// A match as a place: its page, its lines as the quote, and the box
/// around its words when they all have one.
pub fn place(pages: &[SearchPage], found: &Match) -> Place {
    let page = &pages[found.page];
    let words = &page.words[found.words.clone()];
    let (first_line, last_line) = (
        words.first().map_or(0, |w| w.line),
        words.last().map_or(0, |w| w.line),
    );
    let quote = (first_line..=last_line)
        .map(|l| page.line_text(l))
        .collect::<Vec<_>>()
        .join(" ");
    Place {
        page: page.number,
        quote,
        bbox: union(words.iter().map(|w| w.bbox)),
        labelled: found.label > 0,
    }
}

fn union(boxes: impl Iterator<Item = Option<WordBox>>) -> Option<WordBox> {
    let mut out: Option<[f32; 4]> = None;
    for b in boxes {
        let b = b?;
        let edges = [b.x, b.y, b.x + b.width, b.y + b.height];
        out = Some(match out {
            None => edges,
            Some(o) => [
                o[0].min(edges[0]),
                o[1].min(edges[1]),
                o[2].max(edges[2]),
                o[3].max(edges[3]),
            ],
        });
    }
    out.map(|[l, t, r, b]| WordBox {
        x: fraction(l),
        y: fraction(t),
        width: fraction(r - l),
        height: fraction(b - t),
    })
}

/// Rounded to a ten-thousandth of the page: finer than a pixel of any
/// picture of it, and short in the stored JSON.
fn fraction(value: f32) -> f32 {
    (value * 10_000.0).round() / 10_000.0
}
