//! Integration tests of toolrouter-providers: fixtures, quirks, malformed input, profiles.

#![allow(clippy::unwrap_used)] // benches and tests may unwrap

mod end_marker;
mod fixtures;
mod malformed;
mod many_calls;
mod profiles;
mod props;
mod quirks;
mod support;
