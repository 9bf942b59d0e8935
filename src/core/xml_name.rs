//! The names the XML tag dialect reads as tags (`<read_file>`, `<path>`),
//! shared by its detector and by the writer that teaches it (`--text-tools`).

/// The longest name of a tag the XML tag dialect reads as a parameter, and the
/// longest tool or parameter name `--text-tools` writes as a tag (a tool's tag
/// is read within the detector's 256-byte look-ahead).
pub(crate) const MAX_XML_NAME: usize = 128;

/// A byte of a tag name: an ASCII letter or digit, `_`, `-`, `.` or `:`.
pub(crate) fn is_xml_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')
}

/// Whether `name` can be written as a tag that the XML tag dialect reads
/// back: 1 to [`MAX_XML_NAME`] [`is_xml_name_byte`] bytes.
pub(crate) fn is_xml_tag_name(name: &str) -> bool {
    (1..=MAX_XML_NAME).contains(&name.len()) && name.bytes().all(is_xml_name_byte)
}
