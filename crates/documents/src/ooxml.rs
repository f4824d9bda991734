//! What the readers of Office Open XML parts (DOCX's `word/document.xml`,
//! XLSX's workbook and relationships) share.

use quick_xml::events::BytesStart;

/// The value of `element`'s attribute whose local name is `local` (its
/// namespace prefix ignored, as the parts use `w:val` and `r:id` alike),
/// with entities and whitespace normalised as XML 1.0 has it.
pub(crate) fn attribute(element: &BytesStart<'_>, local: &str) -> Option<String> {
    element
        .attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
        .map(|v| v.into_owned())
}
