//! Integration tests of toolrouter-providers: fixtures, quirks, malformed input, profiles.

#![allow(clippy::unwrap_used)] // benches and tests may unwrap

mod fixtures;
mod malformed;
mod profiles;
mod quirks;
mod support;
