//! An XML's element texts, kept only where a caller wants them: the one
//! pass over the bytes that both syntaxes (CII and UBL) are read from.

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::EinvoiceError;

/// An element's text: its path of local names below the root
/// (`ExchangedDocument/ID`), the text, and the element's attributes.
pub(crate) type Leaf = (String, String, Vec<(String, String)>);

/// The XML's element texts.
pub(crate) struct Leaves {
    pub(crate) root: String,
    pub(crate) leaves: Vec<Leaf>,
}

/// The root's name and the texts of the elements whose path `keep`
/// accepts (below the root, cut to [`KEPT_PATH_BYTES`]).
pub(crate) fn leaves_of(xml: &[u8], keep: impl Fn(&str) -> bool) -> Result<Leaves, EinvoiceError> {
    let text = std::str::from_utf8(xml.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(xml))?;
    let mut reader = Reader::from_str(text);
    // The open elements' attributes and where each one's name starts in
    // `path`: the path grows and shrinks with the elements, so a closing
    // tag costs its own name, not the whole stack (joining the stack at
    // each closing tag made a deep XML quadratic).
    let mut stack: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    let mut path = String::new();
    let mut root = None;
    let mut leaves = Vec::new();
    // An element's text, which entity references split into pieces.
    let mut current = String::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|source| EinvoiceError::NotWellFormed {
                at: reader.buffer_position(),
                source,
            })?;
        match event {
            Event::Start(ref e) => {
                let name = e.local_name().as_ref().to_owned();
                let attributes = e
                    .attributes()
                    .flatten()
                    .map(|a| {
                        let value = a
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map(|v| v.into_owned())
                            .unwrap_or_default();
                        (a.key.local_name().as_ref().to_owned(), value)
                    })
                    .collect();
                let start = path.len();
                if root.is_none() {
                    root = Some(name);
                } else {
                    // The path is below the root: `ExchangedDocument/ID`.
                    if stack.len() > 1 {
                        path.push('/');
                    }
                    path.push_str(&name);
                }
                stack.push((start, attributes));
                current.clear();
            }
            Event::Text(ref t) => current.push_str(&t.xml10_content()),
            Event::CData(ref t) => current.push_str(&t.xml10_content()),
            Event::GeneralRef(ref r) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    current.push(c);
                } else if let Some(s) =
                    quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                {
                    current.push_str(s);
                }
            }
            Event::End(_) => {
                let text = current.trim();
                if stack.len() > 1 && !text.is_empty() && keep(&path) {
                    let attributes = stack.last().map(|(_, a)| a.clone()).unwrap_or_default();
                    leaves.push((kept_path(&path), text.to_owned(), attributes));
                }
                current.clear();
                if let Some((start, _)) = stack.pop() {
                    path.truncate(start);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(EinvoiceError::Unclosed);
    }
    Ok(Leaves {
        root: root.ok_or(EinvoiceError::NotXml)?,
        leaves,
    })
}

/// The longest path a leaf keeps: longer than any term's pattern, so a
/// path cut to its last part here is at the same patterns, and a deep
/// element's leaf costs no more than a shallow one's.
const KEPT_PATH_BYTES: usize = 160;

fn kept_path(path: &str) -> String {
    if path.len() <= KEPT_PATH_BYTES {
        return path.to_owned();
    }
    let mut cut = path.len() - KEPT_PATH_BYTES;
    while !path.is_char_boundary(cut) {
        cut += 1;
    }
    // From a `/`, so that the kept path still ends in whole names; the
    // leading `/` keeps it from being taken for a path from the root.
    match path[cut..].find('/') {
        Some(slash) => path[cut + slash..].to_owned(),
        None => format!("/{}", &path[cut..]),
    }
}

/// Whether `path` is at `pattern` (an exact path below the root when it starts with `/`, else the end of one).
pub(crate) fn at_pattern(path: &str, pattern: &str) -> bool {
    match pattern.strip_prefix('/') {
        Some(exact) => path == exact,
        None => {
            path == pattern
                || path
                    .strip_suffix(pattern)
                    .is_some_and(|before| before.ends_with('/'))
        }
    }
}

impl Leaves {
    /// The texts at `pattern` (see [`at_pattern`]), with their attributes.
    pub(crate) fn at<'a>(&'a self, pattern: &'a str) -> impl Iterator<Item = &'a Leaf> + 'a {
        self.leaves
            .iter()
            .filter(move |(path, _, _)| at_pattern(path, pattern))
    }
}
