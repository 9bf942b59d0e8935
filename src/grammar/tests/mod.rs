//! Tests of the grammar layer: the writers' output for small cases, the
//! schema converter's bounds and budget, and the round trip through the
//! detector for every dialect.

mod checks;
mod derive;
mod resume;
mod roundtrip;
mod server;
mod xgrammar;
