//! XML tag per tool (Cline, Thea): `<read_file><path>src/a.ts</path></read_file>`.
//!
//! Only a registered tool name opens a call, and only when the open tag is
//! followed (after whitespace) by another tag, so `<div>` or `<T>` in prose, and
//! a tool tag mentioned in a sentence, stay text. Values are raw, unless the
//! detector is configured to decode XML entities in them
//! ([`DetectConfig::xml_entities`](crate::DetectConfig::xml_entities)), as
//! `--text-tools` writes and teaches them.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::scan::leading_ws;
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, Open, ParamSyntax, XmlSpec, ident_byte, match_open};

/// The Cline-style dialect.
pub(crate) struct XmlTag;

impl TextFormat for XmlTag {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        if cx.catalog.is_empty() {
            return Probe::NoMatch;
        }
        let max = cx.catalog.longest_name();
        let (name, len) = match match_open(input, "<", ">", ident_byte, max) {
            Open::Match(name, len) => (name, len),
            Open::NeedMore if !cx.eof => return Probe::NeedMore,
            _ => return Probe::NoMatch,
        };
        if !cx.catalog.contains(&name) {
            return Probe::NoMatch;
        }
        let rest = &input.as_bytes()[len..];
        let ws = leading_ws(rest);
        match rest.get(ws) {
            None if !cx.eof => Probe::NeedMore,
            Some(b'<') => Probe::Match(Box::new(XmlCallParser::new(XmlSpec {
                format: WireFormat::Xml,
                open_len: len,
                block_close: None,
                entry: EntrySyntax::Named { name },
                param: ParamSyntax::TagPerParam,
                entities: cx.config.xml_entities,
            }))),
            _ => Probe::NoMatch,
        }
    }
}
