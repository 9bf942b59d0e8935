//! DeepSeek V3/R1 and V3.1: one section of calls between full-width special
//! tokens (`｜` U+FF5C, `▁` U+2581), told apart by what follows the first
//! `<｜tool▁call▁begin｜>`.
//!
//! - V3/R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{..}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`
//!   (the fence belongs to the call, it is not a Markdown fence);
//! - V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{..}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`.
//!
//! Both are on by default and share this module: the probe of each accepts
//! only its own call header, so at most one matches. The end of sentence,
//! `<｜end▁of▁sentence｜>` (after the section, or after the answer), is a framing
//! token, removed from the text.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::scan::{leading_ws, starts};
use super::super::section_call::{
    DEEPSEEK_FUNCTION, DEEPSEEK_SEP, Header, SectionParser, SectionSpec,
};
use super::framing::DEEPSEEK_EOS;

const OPEN: &str = "<｜tool▁calls▁begin｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
/// DeepSeek's end of sentence.
const FRAMING: &[&str] = &[DEEPSEEK_EOS];

/// Which DeepSeek header follows the first call's begin token.
fn style(input: &str, cx: &ProbeContext<'_>) -> Result<Header, Probe> {
    let bytes = input.as_bytes();
    let mut i = 0;
    for (n, lit) in [OPEN, CALL_BEGIN].into_iter().enumerate() {
        if n > 0 {
            i += leading_ws(&bytes[i..]);
        }
        match starts(&bytes[i..], lit.as_bytes()) {
            Some(true) => i += lit.len(),
            Some(false) => return Err(Probe::NoMatch),
            None => return Err(cx.need_more()),
        }
    }
    // V3: `function<｜tool▁sep｜>` then a name (a V3.1 tool named `function`
    // has its arguments right after the separator instead).
    let mut j = i;
    for lit in [DEEPSEEK_FUNCTION, DEEPSEEK_SEP] {
        match starts(&bytes[j..], lit.as_bytes()) {
            Some(true) => j += lit.len(),
            Some(false) => return Ok(Header::DeepSeekV31),
            None => return Err(cx.need_more()),
        }
    }
    match bytes.get(j) {
        None => Err(cx.need_more()),
        Some(b) if b.is_ascii_whitespace() || *b == b'{' => Ok(Header::DeepSeekV31),
        Some(_) => Ok(Header::DeepSeekV3),
    }
}

fn parser(format: WireFormat, header: Header) -> Probe {
    Probe::Match(Box::new(SectionParser::new(SectionSpec {
        format,
        open_len: OPEN.len(),
        call_begin: CALL_BEGIN,
        call_end: "<｜tool▁call▁end｜>",
        section_end: "<｜tool▁calls▁end｜>",
        header,
    })))
}

/// DeepSeek V3 and R1.
pub(crate) struct DeepSeekV3;

impl TextFormat for DeepSeekV3 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        match style(input, cx) {
            Ok(Header::DeepSeekV3) => parser(WireFormat::DeepSeekV3, Header::DeepSeekV3),
            Ok(_) => Probe::NoMatch,
            Err(probe) => probe,
        }
    }
}

/// DeepSeek V3.1.
pub(crate) struct DeepSeekV31;

impl TextFormat for DeepSeekV31 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        match style(input, cx) {
            Ok(Header::DeepSeekV31) => parser(WireFormat::DeepSeekV31, Header::DeepSeekV31),
            Ok(_) => Probe::NoMatch,
            Err(probe) => probe,
        }
    }
}
