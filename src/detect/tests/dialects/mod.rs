//! Unit tests of the open-model dialects (issue 6), one module per dialect.

mod gemma4;
mod lfm2;
mod olmo3;
mod pythonic;
