//! Unit tests of the open-model dialects (issue 6), one module per dialect.

mod cohere;
mod granite;
mod internlm2;
mod jamba_hunyuan;
mod json_lists;
mod llama3_json;
mod longcat;
mod mistral;
mod phi4_mini;
