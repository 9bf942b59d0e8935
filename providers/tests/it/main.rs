//! Integration tests of toolrouter-providers: fixtures, quirks, malformed input, profiles.

mod fixtures;
mod malformed;
mod profiles;
mod quirks;
mod support;
