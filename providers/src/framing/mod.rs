//! Framing layers: cut a byte stream into frames before any JSON is read.

pub(crate) mod eventstream;
pub(crate) mod lines;
pub(crate) mod sse;

#[cfg(test)]
mod tests;
