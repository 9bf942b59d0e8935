//! Unit tests of the open-model dialects (issue 6), one module per dialect.

mod deepseek;
mod deepseek_dsml;
mod kimi_k2;
mod props;
mod step3;
