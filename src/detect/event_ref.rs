//! `EventRef`: a borrowed view of one detector event, as an [`EventBatch`]
//! hands it out.
//!
//! [`EventBatch`]: super::EventBatch

use crate::core::{DetectEvent, Diagnostic, ToolCall, WireFormat};

/// A borrowed view of one event of an [`EventBatch`](super::EventBatch); the same variants and
/// fields as [`DetectEvent`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum EventRef<'a> {
    /// Visible text, released once it can no longer open a call.
    Text {
        /// The text.
        text: &'a str,
    },
    /// Reasoning ("thinking") text, never part of the visible text.
    Reasoning {
        /// The text.
        text: &'a str,
    },
    /// A call has begun and its name is known.
    CallStart {
        /// The call's position among this stream's calls, from 0.
        index: usize,
        /// The call id (the model's own, or generated).
        id: &'a str,
        /// The tool name.
        name: &'a str,
        /// The dialect.
        format: WireFormat,
    },
    /// More of a call's arguments JSON text.
    ArgsDelta {
        /// The call's index.
        index: usize,
        /// The next piece of the arguments JSON.
        fragment: &'a str,
    },
    /// A call is complete.
    CallEnd {
        /// The call's index.
        index: usize,
        /// The finished call.
        call: &'a ToolCall,
    },
    /// Markup that did not become a call; its raw text was given back as `Text`.
    Malformed {
        /// What went wrong.
        diagnostic: &'a Diagnostic,
    },
}

impl EventRef<'_> {
    /// The owned event.
    pub fn to_event(&self) -> DetectEvent {
        match *self {
            EventRef::Text { text } => DetectEvent::Text { text: text.into() },
            EventRef::Reasoning { text } => DetectEvent::Reasoning { text: text.into() },
            EventRef::CallStart {
                index,
                id,
                name,
                format,
            } => DetectEvent::CallStart {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
                format,
            },
            EventRef::ArgsDelta { index, fragment } => DetectEvent::ArgsDelta {
                index,
                fragment: fragment.into(),
            },
            EventRef::CallEnd { index, call } => DetectEvent::CallEnd {
                index,
                call: Box::new(call.clone()),
            },
            EventRef::Malformed { diagnostic } => DetectEvent::Malformed {
                diagnostic: diagnostic.clone(),
            },
        }
    }
}

impl<'a> From<&'a DetectEvent> for EventRef<'a> {
    fn from(event: &'a DetectEvent) -> Self {
        match event {
            DetectEvent::Text { text } => EventRef::Text { text },
            DetectEvent::Reasoning { text } => EventRef::Reasoning { text },
            DetectEvent::CallStart {
                index,
                id,
                name,
                format,
            } => EventRef::CallStart {
                index: *index,
                id,
                name,
                format: *format,
            },
            DetectEvent::ArgsDelta { index, fragment } => EventRef::ArgsDelta {
                index: *index,
                fragment,
            },
            DetectEvent::CallEnd { index, call } => EventRef::CallEnd {
                index: *index,
                call,
            },
            DetectEvent::Malformed { diagnostic } => EventRef::Malformed { diagnostic },
        }
    }
}
