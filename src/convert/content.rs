//! The content of an MCP `CallToolResult` normalised into parts every dialect
//! maps from, and its plain-text rendering for dialects that carry only text.

use std::borrow::Cow;

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;

/// One piece of a tool result, after embedded text resources, resource links
/// and unknown blocks were turned into text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part<'a> {
    /// Text.
    Text(Cow<'a, str>),
    /// A base64 image.
    Image { mime: &'a str, data: &'a str },
    /// Base64 audio.
    Audio { mime: &'a str, data: &'a str },
    /// An embedded binary resource (base64).
    Blob {
        uri: &'a str,
        mime: Option<&'a str>,
        data: &'a str,
    },
}

/// What happens to `structuredContent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Structured {
    /// The dialect carries only content: when no content block is text,
    /// `structuredContent` is appended as JSON text.
    AsText,
    /// The dialect carries `structuredContent` as JSON itself: text blocks that
    /// are its serialized copy are left out.
    Separate,
}

/// The parts of a result, in order.
pub(crate) fn parts(result: &CallToolResult, structured: Structured) -> Vec<Part<'_>> {
    let mut out = Vec::with_capacity(result.content.len() + 1);
    for block in &result.content {
        if structured == Structured::Separate && is_structured_copy(block, result) {
            continue;
        }
        out.push(part(block));
    }
    if structured == Structured::AsText {
        let has_text = result
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::Text(_)));
        if let (Some(value), false) = (&result.structured_content, has_text) {
            out.push(Part::Text(Cow::Owned(value.to_string())));
        }
    }
    out
}

/// Whether a text block is the JSON serialization of `structuredContent`.
fn is_structured_copy(block: &ContentBlock, result: &CallToolResult) -> bool {
    match (block, &result.structured_content) {
        (ContentBlock::Text(text), Some(value)) => {
            serde_json::from_str::<Value>(&text.text).is_ok_and(|parsed| &parsed == value)
        }
        _ => false,
    }
}

fn part(block: &ContentBlock) -> Part<'_> {
    match block {
        ContentBlock::Text(text) => Part::Text(Cow::Borrowed(&text.text)),
        ContentBlock::Image(image) => Part::Image {
            mime: &image.mime_type,
            data: &image.data,
        },
        ContentBlock::Audio(audio) => Part::Audio {
            mime: &audio.mime_type,
            data: &audio.data,
        },
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                Part::Text(Cow::Owned(format!("[resource {uri}]\n{text}")))
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => Part::Blob {
                uri,
                mime: mime_type.as_deref(),
                data: blob,
            },
            other => Part::Text(Cow::Owned(format!(
                "[resource {}]",
                serde_json::to_string(other).unwrap_or_default()
            ))),
        },
        ContentBlock::ResourceLink(link) => {
            let mut text = format!("[resource link {}: {}", link.uri, link.name);
            if let Some(mime) = &link.mime_type {
                text.push_str(&format!(" ({mime})"));
            }
            if let Some(description) = &link.description {
                text.push_str(&format!(" - {description}"));
            }
            text.push(']');
            Part::Text(Cow::Owned(text))
        }
        other => {
            let json = serde_json::to_string(other).unwrap_or_default();
            Part::Text(Cow::Owned(format!("[content {json}]")))
        }
    }
}

impl Part<'_> {
    /// The part as text: text as is, binary content as a bracketed placeholder
    /// naming its type and decoded size (the data itself is left out).
    pub(crate) fn to_text(&self) -> Cow<'_, str> {
        match self {
            Part::Text(text) => Cow::Borrowed(text),
            Part::Image { mime, data } => {
                Cow::Owned(format!("[image {mime}, {} bytes]", decoded_len(data)))
            }
            Part::Audio { mime, data } => {
                Cow::Owned(format!("[audio {mime}, {} bytes]", decoded_len(data)))
            }
            Part::Blob { uri, mime, data } => Cow::Owned(format!(
                "[resource {uri} ({}), {} bytes]",
                mime.unwrap_or("application/octet-stream"),
                decoded_len(data)
            )),
        }
    }
}

/// Joins the parts' text renderings with newlines.
pub(crate) fn join_text(parts: &[Part<'_>]) -> String {
    let texts: Vec<Cow<'_, str>> = parts.iter().map(Part::to_text).collect();
    texts.join("\n")
}

/// The whole result as plain text (`structuredContent` as JSON when no block is text).
pub(crate) fn plain_text(result: &CallToolResult) -> String {
    join_text(&parts(result, Structured::AsText))
}

/// Whether the result is an error.
pub(crate) fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// Text for dialects without an error flag: an error result starts with
/// `Error: ` unless its text already starts with "error".
pub(crate) fn flag_error(text: String, is_error: bool) -> String {
    if !is_error
        || text
            .get(..5)
            .is_some_and(|head| head.eq_ignore_ascii_case("error"))
    {
        text
    } else {
        format!("Error: {text}")
    }
}

/// The size in bytes of base64 data once decoded.
pub(crate) fn decoded_len(data: &str) -> usize {
    let trimmed = data.trim_end_matches('=');
    trimmed.len() / 4 * 3 + (trimmed.len() % 4).saturating_sub(1)
}

/// The short image format name (`png`) of an image MIME type a provider
/// accepts inline: JPEG, PNG, GIF and WebP.
pub(crate) fn image_format(mime: &str) -> Option<&'static str> {
    match mime.to_ascii_lowercase().as_str() {
        "image/png" => Some("png"),
        "image/jpeg" | "image/jpg" => Some("jpeg"),
        "image/gif" => Some("gif"),
        "image/webp" => Some("webp"),
        _ => None,
    }
}
